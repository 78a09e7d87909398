import { startFakeYouTubeApi, type FakeYouTubeApi } from '@platform/testing';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { Clock } from '../common/clock';
import { ReelPublisher } from '../reels/reel.publisher';
import { PlannedPostsWorker } from './planned-posts.worker';

const POLL = 60_000;

/** Planned posts to instagram (fake Graph API) and youtube (fake YouTube Data API), per-target status, idempotency. */
describe('planned posts (e2e)', () => {
  let ctx: AutomationTestContext;
  let yt: FakeYouTubeApi;
  const auth = (key = ctx.keyA) => ({ authorization: `Bearer ${key}` });
  const get = (path: string, key?: string) => ctx.t.http.get(`/api/v1${path}`).set(auth(key));
  const post = (path: string, body?: unknown, key?: string) => ctx.t.http.post(`/api/v1${path}`).set(auth(key)).send(body as object);
  const clock = () => ctx.t.app.get(Clock);
  const past = () => new Date(clock().now().getTime() - 1000).toISOString();
  /** Runs both workers, moving the clock past each poll, until the post ended (at most `rounds`). */
  async function publishAll(id: number, rounds = 8): Promise<Record<string, any>> {
    for (let i = 0; i < rounds; i++) {
      await ctx.t.app.get(PlannedPostsWorker).drain();
      await ctx.t.app.get(ReelPublisher).drain();
      await ctx.t.app.get(PlannedPostsWorker).drain();
      const body = (await get(`/planned_posts/${id}`)).body;
      if (body.status !== 'open') return body;
      clock().advance(POLL + 1);
    }
    return (await get(`/planned_posts/${id}`)).body;
  }
  async function uploadVideo(size: number): Promise<string> {
    const res = await ctx.t.http.post('/api/v1/videos').set(auth()).set('content-type', 'video/mp4').send(Buffer.alloc(size, 3));
    expect(res.status).toBe(201);
    return res.body.video_id;
  }

  beforeAll(async () => {
    yt = await startFakeYouTubeApi();
    ctx = await startAutomationApp({
      PUBLISH_POLL_MS: String(POLL),
      AUTOMATION_RETRY_BASE_MS: '1000',
      YOUTUBE_API_URL: yt.url,
      YOUTUBE_TOKEN_URL: yt.tokenUrl,
      YOUTUBE_CLIENT_ID: yt.clientId,
      YOUTUBE_CLIENT_SECRET: yt.clientSecret,
      YOUTUBE_REFRESH_TOKEN: yt.refreshToken,
      YOUTUBE_CHUNK_BYTES: '262144',
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await yt?.close();
  });
  beforeEach(() => {
    ctx.fakeA.reset();
    yt.reset();
  });

  it('publishes to both targets; a repeated idempotency_key returns the first post with duplicate: true', async () => {
    const videoId = await uploadVideo(600_000);
    const body = {
      publish_at: past(),
      caption: 'Winter drop\nAll the details in the bio',
      source: { video_id: videoId },
      targets: [{ platform: 'instagram' }, { platform: 'youtube' }],
      idempotency_key: 'drop-2026-12',
    };
    const created = await post('/planned_posts', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      status: 'open',
      publish_at: expect.any(String),
      source: { video_id: videoId, size_mb: 0.57, file_status: 'stored' },
      caption: body.caption,
      title: null,
      idempotency_key: 'drop-2026-12',
      targets: [
        { platform: 'instagram', id: expect.any(Number), status: 'scheduled', publish_at: expect.any(String), permalink: null, external_id: null, published_at: null, error: null },
        { platform: 'youtube', id: expect.any(Number), status: 'scheduled', publish_at: expect.any(String), permalink: null, external_id: null, published_at: null, error: null },
      ],
      duplicate: false,
      notes: expect.arrayContaining([expect.stringContaining('Winter drop')]),
      created_at: expect.any(String),
    });
    const again = await post('/planned_posts', { ...body, caption: 'something else' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: created.body.id, duplicate: true, caption: body.caption });

    // The upload breaks after 100 000 bytes of a chunk: the client asks where it stands and resumes.
    yt.truncateNextChunk = 100_000;
    const done = await publishAll(created.body.id);
    expect(done.status).toBe('published');
    const [ig, youtube] = done.targets;
    const media = ctx.fakeA.state.media.find((m) => m.caption === body.caption)!;
    expect(ig).toMatchObject({ status: 'published', external_id: media.id, permalink: media.permalink, error: null });
    expect(youtube).toMatchObject({ status: 'published', external_id: yt.videos[0].id, permalink: `https://www.youtube.com/watch?v=${yt.videos[0].id}`, error: null });
    expect(yt.videos).toHaveLength(1);
    expect(yt.videos[0]).toMatchObject({ title: 'Winter drop', description: body.caption, bytes: 600_000, privacyStatus: 'public' });
    // 600 000 bytes in chunks of 262 144: the truncated first chunk made the client go on from byte 100 000.
    const ranges = yt.requests.filter((r) => r.method === 'PUT').map((r) => r.headers['content-range']);
    expect(ranges[0]).toBe('bytes 0-262143/600000');
    expect(ranges[1]).toBe('bytes 100000-362143/600000');
    expect(done.source.file_status).toBe('uploaded');
    expect(ctx.fakeA.state.containers.size).toBe(1);
  });

  it('concurrent requests with one idempotency_key store one post', async () => {
    const body = { publish_at: new Date(clock().now().getTime() + 3_600_000).toISOString(), caption: 'Same', source: { video_url: 'https://cdn.example.com/same.mp4' }, targets: [{ platform: 'instagram' }], idempotency_key: 'same-key' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/planned_posts', body)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200 && a.body.duplicate === true)).toHaveLength(9);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [{ count }] = await ctx.ds.query(`SELECT count(*)::int AS count FROM ${ctx.schema}.planned_posts WHERE idempotency_key = 'same-key'`);
    expect(count).toBe(1);
    // Another account may use the same key for its own post (no YouTube there: instagram only).
    expect((await post('/planned_posts', body, ctx.keyB)).status).toBe(201);
  });

  it('one target failing → partial, with the platform error on that target; both failing → failed', async () => {
    yt.fail({ on: 'initiate', status: 403, reason: 'quotaExceeded', message: 'The request cannot be completed because you have exceeded your quota.' });
    const partial = await post('/planned_posts', { publish_at: past(), caption: 'Half', title: 'Half of it', source: { video_id: await uploadVideo(1000) }, targets: [{ platform: 'instagram' }, { platform: 'youtube' }] });
    const p = await publishAll(partial.body.id);
    expect(p.status).toBe('partial');
    expect(p.targets[0]).toMatchObject({ platform: 'instagram', status: 'published' });
    expect(p.targets[1]).toMatchObject({ platform: 'youtube', status: 'failed', external_id: null, error: expect.stringContaining('exceeded your quota') });

    ctx.fakeA.state.containerPlan.push({ polls: 0, error: 'Error: unsupported codec (2207026)' });
    yt.fail({ on: 'initiate', status: 400, reason: 'invalidTitle', message: 'The request metadata specifies an invalid or empty video title.' });
    const failed = await post('/planned_posts', { publish_at: past(), caption: 'Nothing', source: { video_id: await uploadVideo(1000) }, targets: [{ platform: 'instagram' }, { platform: 'youtube' }] });
    const f = await publishAll(failed.body.id);
    expect(f.status).toBe('failed');
    expect(f.targets[0]).toMatchObject({ status: 'failed', error: 'Error: unsupported codec (2207026)' });
    expect(f.targets[1]).toMatchObject({ status: 'failed', error: expect.stringContaining('invalidTitle') });
  });

  it('a 503 during the upload is retried and resumes; per-target publish_at; cancel; validation', async () => {
    yt.fail({ on: 'chunk', status: 503 });
    const later = new Date(clock().now().getTime() + 7_200_000).toISOString();
    const res = await post('/planned_posts', { publish_at: past(), caption: 'Resume', source: { video_id: await uploadVideo(300_000) }, targets: [{ platform: 'youtube' }, { platform: 'instagram', publish_at: later }] });
    await ctx.t.app.get(PlannedPostsWorker).drain();
    let body = (await get(`/planned_posts/${res.body.id}`)).body;
    expect(body.status).toBe('open');
    expect(body.targets[0]).toMatchObject({ platform: 'youtube', status: 'published' });
    expect(body.targets[1]).toMatchObject({ platform: 'instagram', status: 'scheduled' });
    expect(yt.videos).toHaveLength(1);
    clock().advance(7_200_000);
    body = await publishAll(res.body.id);
    expect(body.status).toBe('published');

    const inAnHour = new Date(clock().now().getTime() + 3_600_000).toISOString();
    const future = await post('/planned_posts', { publish_at: inAnHour, caption: 'Later', source: { video_url: 'https://cdn.example.com/l.mp4' }, targets: [{ platform: 'instagram' }] });
    expect((await post(`/planned_posts/${future.body.id}/cancel`)).body).toMatchObject({ status: 'cancelled', targets: [{ status: 'cancelled' }] });
    expect((await post(`/planned_posts/${future.body.id}/cancel`)).status).toBe(200);
    expect((await post(`/planned_posts/${res.body.id}/cancel`)).status).toBe(409);

    const bad = async (extra: Record<string, unknown>, pattern: RegExp, key?: string) => {
      const r = await post('/planned_posts', { publish_at: inAnHour, caption: 'c', source: { video_url: 'https://cdn.example.com/a.mp4' }, targets: [{ platform: 'instagram' }], ...extra }, key);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(pattern);
    };
    await bad({ targets: [] }, /targets/);
    await bad({ targets: [{ platform: 'tiktok' }] }, /platform/);
    await bad({ targets: ['instagram'] }, /targets/);
    await bad({ targets: [{ platform: 'instagram' }, { platform: 'instagram' }] }, /each platform once/);
    await bad({ idempotency_key: 'has space' }, /idempotency_key/);
    await bad({ title: 'x'.repeat(101) }, /title/);
    await bad({ targets: [{ platform: 'youtube' }] }, /youtube is not connected/, ctx.keyB);
    expect((await get(`/planned_posts/${res.body.id}`, ctx.keyB)).status).toBe(404);
    expect((await get('/planned_posts?status=published')).body.every((x: { status: string }) => x.status === 'published')).toBe(true);
  });
});
