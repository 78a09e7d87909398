import { startFakeYouTubeApi, type FakeYouTubeApi } from '@platform/testing';
import { bufferBytes } from '../videos/videos.service';
import { YouTubeApiError, YouTubeClient } from './youtube-client';

/** The resumable upload protocol against the fake YouTube Data API. */
describe('YouTubeClient', () => {
  let yt: FakeYouTubeApi;
  const client = (chunkBytes = 262_144) =>
    new YouTubeClient({ apiUrl: yt.url, tokenUrl: yt.tokenUrl, clientId: yt.clientId, clientSecret: yt.clientSecret, timeoutMs: 5000, chunkBytes });
  const video = (size: number) => bufferBytes(Buffer.alloc(size, 9), 'video/mp4');

  beforeAll(async () => {
    yt = await startFakeYouTubeApi();
  });
  afterAll(() => yt.close());
  beforeEach(() => yt.reset());

  it('uploads in chunks of 256 KiB multiples and answers the video id and watch URL', async () => {
    const result = await client(300_000).upload(yt.refreshToken, { title: 'T', description: 'D', privacyStatus: 'unlisted', video: video(600_000) });
    expect(result).toEqual({ id: yt.videos[0].id, permalink: `https://www.youtube.com/watch?v=${yt.videos[0].id}`, publishedAt: expect.any(String) });
    expect(yt.videos[0]).toMatchObject({ title: 'T', description: 'D', privacyStatus: 'unlisted', bytes: 600_000, contentType: 'video/mp4' });
    expect(yt.requests.filter((r) => r.method === 'PUT').map((r) => r.headers['content-range'])).toEqual(['bytes 0-262143/600000', 'bytes 262144-524287/600000', 'bytes 524288-599999/600000']);
  });

  it('resumes a stored session after a crash instead of creating a second video', async () => {
    let session = '';
    const full = video(400_000);
    // The process dies while reading the second chunk.
    const dying = { ...full, open: (start?: number, end?: number) => { if (start) throw new Error('process died'); return full.open(start, end); } };
    await expect(
      client().upload(yt.refreshToken, { title: 'T', description: '', privacyStatus: 'public', video: dying, onSession: async (uri) => void (session = uri) }),
    ).rejects.toThrow('process died');
    expect(session).toContain('upload_id=');
    expect(yt.videos).toHaveLength(0);
    // A new process (new client, new access token) continues the stored session from the server's Range.
    const result = await client().upload(yt.refreshToken, { title: 'T', description: '', privacyStatus: 'public', video: full, sessionUri: session });
    expect(yt.videos).toEqual([expect.objectContaining({ id: result.id, bytes: 400_000 })]);
    const puts = yt.requests.filter((r) => r.method === 'PUT').map((r) => r.headers['content-range']);
    expect(puts).toEqual(['bytes 0-262143/400000', 'bytes */400000', 'bytes 262144-399999/400000']);
    expect(yt.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/upload'))).toHaveLength(1);
  });

  it('a connection broken mid-upload resumes from the Range the server reports', async () => {
    let session = '';
    yt.truncateNextChunk = 1_000;
    const result = await client().upload(yt.refreshToken, { title: 'T', description: '', privacyStatus: 'public', video: video(300_000), onSession: async (uri) => void (session = uri) });
    expect(yt.videos).toHaveLength(1);
    expect(yt.videos[0].bytes).toBe(300_000);
    // Resuming a finished session answers the same video (a restarted worker never uploads twice).
    const again = await client().upload(yt.refreshToken, { title: 'T', description: '', privacyStatus: 'public', video: video(300_000), sessionUri: session });
    expect(again.id).toBe(result.id);
    expect(yt.videos).toHaveLength(1);
  });

  it('gets a new access token when the cached one is refused, and reports refused grants', async () => {
    const c = client();
    await c.upload(yt.refreshToken, { title: 'A', description: '', privacyStatus: 'public', video: video(10) });
    yt.accessTokens.clear();
    await c.upload(yt.refreshToken, { title: 'B', description: '', privacyStatus: 'public', video: video(10) });
    expect(yt.videos.map((v) => v.title)).toEqual(['A', 'B']);
    await expect(c.upload('revoked', { title: 'C', description: '', privacyStatus: 'public', video: video(10) })).rejects.toMatchObject({ reason: 'invalid_grant', retryable: false });
    const err = await c.upload(yt.refreshToken, { title: '', description: '', privacyStatus: 'public', video: video(10) }).catch((e: YouTubeApiError) => e);
    expect(err).toMatchObject({ status: 400, reason: 'invalidTitle', retryable: false });
  });
});
