import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { SubscriptionHealthWorker } from '../status/subscription-health.worker';

const POST_FIELDS = ['id', 'type', 'date', 'caption', 'link', 'comments_count', 'likes', 'thumbnail', 'automations', 'automation_missing'].sort();
const COMMENT_FIELDS = ['id', 'user', 'user_id', 'text', 'timestamp', 'answered', 'answered_by'].sort();

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe('endpoints that need the social platform (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);

  beforeAll(async () => {
    ctx = await startAutomationApp();
  });
  afterAll(() => ctx?.close());
  beforeEach(() => {
    ctx.fakeA.reset();
  });

  describe('GET /posts', () => {
    it('lists the latest 12 posts by default, with every Post field', async () => {
      for (let i = 0; i < 15; i++) ctx.fakeA.addMedia({ timestamp: minutesAgo(3000 + i) });
      const res = await get('/posts');
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(12);
      expect(Object.keys(res.body[0]).sort()).toEqual(POST_FIELDS);
      expect((await get('/posts?limit=3')).body).toHaveLength(3);
      expect((await get('/posts?limit=50')).body).toHaveLength(15);
    });

    it.each(['0', '51', 'abc', '2.5'])('refuses limit=%s with 400', async (limit) => {
      const res = await get(`/posts?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('limit');
    });

    it('maps types and thumbnails, names attached automations, flags reels without an automation', async () => {
      const image = ctx.fakeA.addMedia({ media_type: 'IMAGE', caption: 'A photo', like_count: 7, timestamp: minutesAgo(60) });
      const video = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'FEED', timestamp: minutesAgo(50) });
      const orphanReel = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', timestamp: minutesAgo(10) });
      const freshReel = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', timestamp: minutesAgo(2) });
      const oldReel = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', timestamp: minutesAgo(60 * 30) });
      const coveredReel = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: undefined, timestamp: minutesAgo(20) });
      ctx.fakeA.addComment(image.id, { text: 'nice' });

      const live = await post('/automations', { name: 'Reel bot', keywords: ['go'], media_ids: [coveredReel.id] });
      await post(`/automations/${live.body.automation.id}/go_live`).expect(200);
      await post('/automations', { name: 'Draft for photo', keywords: ['go'], media_ids: [image.id] });

      const res = await get('/posts');
      const byId = new Map<string, any>(res.body.map((p: { id: string }) => [p.id, p]));
      expect(byId.get(image.id)).toMatchObject({
        type: 'image',
        caption: 'A photo',
        likes: 7,
        comments_count: 1,
        thumbnail: image.media_url,
        link: image.permalink,
        automations: ['Draft for photo'],
        automation_missing: false,
      });
      expect(new Date(byId.get(image.id).date).toISOString()).toBe(byId.get(image.id).date);
      expect(byId.get(video.id)).toMatchObject({ type: 'video', thumbnail: video.thumbnail_url, automation_missing: false });
      expect(byId.get(orphanReel.id)).toMatchObject({ type: 'reel', automations: [], automation_missing: true });
      expect(byId.get(freshReel.id).automation_missing).toBe(false);
      expect(byId.get(oldReel.id).automation_missing).toBe(false);
      expect(byId.get(coveredReel.id)).toMatchObject({ automations: ['Reel bot'], automation_missing: false, caption: '' });
      await post(`/automations/${live.body.automation.id}/pause`).expect(200);
    });

    it('answers 502 {error} when the platform fails, times out or refuses the token', async () => {
      ctx.fakeA.fail({ path: '/media', status: 500, code: 2 });
      let res = await get('/posts');
      expect(res.status).toBe(502);
      expect(Object.keys(res.body)).toEqual(['error']);
      ctx.fakeA.fail({ path: '/media', mode: 'timeout' });
      res = await get('/posts');
      expect(res.status).toBe(502);
      expect(res.body.error).toContain('no answer');
      ctx.fakeA.fail({ path: '/media', code: 190 });
      res = await get('/posts');
      expect(res.status).toBe(502);
      expect(res.body.error).toContain('190');
    });
  });

  describe('GET /posts/{id}/comments', () => {
    it('marks comments answered by the service, by another tool, or not at all', async () => {
      const media = ctx.fakeA.addMedia();
      const ours = ctx.fakeA.addComment(media.id, { text: 'link please', from: { id: 'u1', username: 'ann' } });
      const viaDm = ctx.fakeA.addComment(media.id, { text: 'me too', from: { id: 'u2', username: 'bo' } });
      const other = ctx.fakeA.addComment(media.id, { text: 'and me', from: { id: 'u3', username: 'cy' } });
      const open = ctx.fakeA.addComment(media.id, { text: 'hello', from: { id: 'u4', username: 'di' } });
      ctx.fakeA.addReply(open.id, 'a fan reply', { fromAccount: false });
      const ourReply = ctx.fakeA.addReply(ours.id, 'sent!');
      ctx.fakeA.addReply(other.id, 'answered by another tool');
      await ctx.ds.query(
        `INSERT INTO ${ctx.schema}.comment_replies (account_id, comment_id, media_id, kind, reply_id) VALUES ($1, $2, $3, 'public_reply', $4)`,
        [ctx.accountId('a'), ours.id, media.id, ourReply.id],
      );
      const a = await post('/automations', { keywords: ['x'] });
      await ctx.insertRun('a', a.body.automation.id, { comment_id: viaDm.id, media_id: media.id, dm_sent_at: new Date() });

      const res = await get(`/posts/${media.id}/comments`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body[0]).sort()).toEqual(COMMENT_FIELDS);
      const byId = new Map<string, any>(res.body.map((c: { id: string }) => [c.id, c]));
      expect(byId.get(ours.id)).toMatchObject({ user: 'ann', user_id: 'u1', text: 'link please', answered: true, answered_by: 'automation-api' });
      expect(byId.get(viaDm.id)).toMatchObject({ answered: true, answered_by: 'automation-api' });
      expect(byId.get(other.id)).toMatchObject({ answered: true, answered_by: 'other' });
      expect(byId.get(open.id)).toMatchObject({ answered: false, answered_by: null });
      expect(new Date(byId.get(open.id).timestamp).toISOString()).toBe(byId.get(open.id).timestamp);
    });

    it('answers 404 for a post the platform does not know, 400 for an id that cannot be one, 502 when the platform fails', async () => {
      let res = await get('/posts/1790000000000/comments');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Post 1790000000000 not found' });
      for (const bad of ['%2E%2E', 'a.b', 'x%20y', '%00']) {
        res = await get(`/posts/${bad}/comments`);
        expect(res.status).toBe(400);
        expect(Object.keys(res.body)).toEqual(['error']);
      }
      const media = ctx.fakeA.addMedia();
      ctx.fakeA.fail({ path: `/${media.id}/comments`, status: 500, code: 2 });
      res = await get(`/posts/${media.id}/comments`);
      expect(res.status).toBe(502);
      expect(Object.keys(res.body)).toEqual(['error']);
    });
  });

  describe('GET /status', () => {
    it('reports the connection, token expiry, webhook subscription and counts', async () => {
      const expires = new Date(Date.now() + 10 * 86_400_000);
      await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET token_expires_at = $2 WHERE id = $1`, [ctx.accountId('a'), expires]);
      let res = await get('/status');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        account_status: 'connected',
        problem: null,
        token_expires_at: expires.toISOString(),
        token_expires_in_days: 9,
        username: 'brand_a',
        counts: expect.objectContaining({ automations: expect.any(Number), contacts: expect.any(Number), runs: expect.any(Number) }),
      });
      expect(res.body.webhook_problem).toContain('comments');
      ctx.fakeA.state.subscribedFields = ['comments', 'messages', 'messaging_postbacks'];
      res = await get('/status');
      expect(res.body.webhook_problem).toBeNull();
      expect(res.body.subscribed_fields).toEqual(['comments', 'messages', 'messaging_postbacks']);
    });

    it('answers 200 with the problem when the platform fails, and a webhook_problem when only the subscription fails', async () => {
      ctx.fakeA.fail({ path: /^\/\d+$/, status: 500, code: 2, message: 'Service temporarily unavailable' });
      let res = await get('/status');
      expect(res.status).toBe(200);
      expect(res.body.problem).toContain('Service temporarily unavailable');
      expect(res.body.webhook_problem).toBeNull();

      ctx.fakeA.fail({ path: '/subscribed_apps', status: 400, code: 10, message: 'Permission denied' });
      res = await get('/status');
      expect(res.body.problem).toBeNull();
      expect(res.body.webhook_problem).toContain('Permission denied');

      ctx.fakeA.fail({ path: /^\/\d+$/, code: 190 });
      res = await get('/status');
      expect(res.body).toMatchObject({ account_status: 'token_invalid', problem: expect.stringContaining('190') });
      res = await get('/status');
      expect(res.body.account_status).toBe('connected');
    });

    it('the periodic subscription check subscribes again when the subscription vanished, and fills webhook_problem with what it could not repair', async () => {
      /** One check of every account (the previous check's lease lifted, as the next interval would). */
      const check = async () => {
        await ctx.ds.query(`UPDATE ${ctx.schema}.subscription_checks SET lease_until = NULL`);
        return ctx.t.app.get(SubscriptionHealthWorker).drain();
      };
      // Accounts are checked one interval after they are first seen: nothing was checked yet.
      expect((await get('/status')).body).toMatchObject({ webhook_checked_at: null, webhook_resubscribed_at: null });
      // The subscription vanished (the fake starts without one): the check subscribes the app again.
      expect(await check()).toBeGreaterThanOrEqual(1); // A (B too when it existed at the first tick)
      expect(ctx.fakeA.requestsTo('/subscribed_apps', 'POST')).toHaveLength(1);
      expect(ctx.fakeA.state.subscribedFields).toEqual(['comments', 'messages', 'messaging_postbacks']);
      let res = await get('/status');
      expect(res.body.subscribed_fields).toEqual(['comments', 'messages', 'messaging_postbacks']);
      expect(res.body.webhook_resubscribed_at).not.toBeNull();
      expect(res.body.webhook_problem).toMatch(/subscribed again at .* by the periodic check/);
      // Healthy: read, nothing written.
      await check();
      expect(ctx.fakeA.requestsTo('/subscribed_apps', 'POST')).toHaveLength(1);
      // A field lost and subscribing refused: the check's failure shows beside the live finding.
      ctx.fakeA.state.subscribedFields = ['messages'];
      ctx.fakeA.fail({ path: '/subscribed_apps', method: 'POST', status: 400, code: 10, message: 'Permission denied for subscribed_apps' });
      await check();
      res = await get('/status');
      expect(res.body.webhook_problem).toContain('missing fields: comments, messaging_postbacks');
      expect(res.body.webhook_problem).toMatch(/Periodic check at .*: The webhook subscription had lost comments, messaging_postbacks; subscribing again failed: Permission denied for subscribed_apps/);
      // The next check repairs it.
      await check();
      expect(ctx.fakeA.state.subscribedFields).toEqual(['messages', 'comments', 'messaging_postbacks']);
      expect((await get('/status')).body.webhook_problem).toMatch(/subscribed again/);
    });
  });
});
