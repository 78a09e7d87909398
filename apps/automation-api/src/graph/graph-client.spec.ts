import { startFakeGraphApi, type FakeGraphApi } from '@platform/testing';
import { AccountLimiter, SlidingWindowBudget } from './call-budget';
import { GraphApiError } from './graph-api.error';
import { GraphClient, buttonTemplate, type GraphClientConfig } from './graph-client';

describe('GraphClient against the fake Graph API', () => {
  let fake: FakeGraphApi;
  let limiter: AccountLimiter;
  let privateReplies: SlidingWindowBudget;
  const make = (over: Partial<GraphClientConfig> = {}, opts = {}) =>
    new GraphClient(
      { baseUrl: fake.url, accessToken: 'tok', igUserId: '1784', timeoutMs: 2_000, throttlePauseMs: 60_000, ...over },
      limiter,
      privateReplies,
      undefined,
      opts,
    );

  beforeAll(async () => {
    fake = await startFakeGraphApi({ accessToken: 'tok', userId: '1784' });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    limiter = new AccountLimiter({ concurrency: 2, callsPerHour: 1_000 });
    privateReplies = new SlidingWindowBudget(750, 3_600_000);
  });
  afterEach(() => {
    limiter.dispose();
    privateReplies.dispose();
  });

  it('lists recent media across cursor pages', async () => {
    for (let i = 0; i < 60; i++) fake.addMedia({ timestamp: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString() });
    const media = await make().listRecentMedia(55);
    expect(media).toHaveLength(55);
    expect(fake.requestsTo('/1784/media', 'GET')).toHaveLength(2);
    expect(fake.requestsTo('/1784/media')[0].query.fields).toContain('thumbnail_url');
    expect(fake.requestsTo('/1784/media')[0].headers.authorization).toBe('Bearer tok');
  });

  it('reads comments with replies{from}', async () => {
    const m = fake.addMedia();
    const c = fake.addComment(m.id, { text: 'guide?', from: { id: '5', username: 'ann' } });
    fake.addReply(c.id, 'here you go');
    const page = await make().listComments(m.id);
    expect(page.data[0]).toMatchObject({ id: c.id, text: 'guide?', from: { id: '5', username: 'ann' } });
    expect(page.data[0].replies?.data[0].from).toEqual({ id: '1784', username: 'fake_business' });
  });

  it('sends text, button templates, private replies and public replies', async () => {
    const m = fake.addMedia();
    const c = fake.addComment(m.id, { text: 'link', from: { id: '6', username: 'bo' } });
    const client = make();
    await client.sendPrivateReply(c.id, buttonTemplate('Hey bo', [{ type: 'postback', title: 'Send link', payload: 'open:1' }]));
    await client.sendText('6', 'plain');
    const reply = await client.replyToComment(c.id, 'Sent you a DM');
    expect(fake.state.messages.map((x) => x.recipient)).toEqual([{ comment_id: c.id }, { id: '6' }]);
    expect(fake.state.messages[0].message).toEqual({
      attachment: { type: 'template', payload: { template_type: 'button', text: 'Hey bo', buttons: [{ type: 'postback', title: 'Send link', payload: 'open:1' }] } },
    });
    expect(fake.state.comments.get(c.id)?.replies.map((r) => r.id)).toEqual([reply.id]);
  });

  it('gives the private-reply slot back when the platform refuses, so the next one does not wait', async () => {
    privateReplies = new SlidingWindowBudget(1, 3_600_000);
    const m = fake.addMedia();
    const answered = fake.addComment(m.id, { text: 'x' });
    answered.private_replied = true; // another tool used the private reply already
    const fresh = fake.addComment(m.id, { text: 'y' });
    const client = make();
    const refused = await client.sendPrivateReply(answered.id, { text: 'one' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GraphApiError);
    expect((refused as GraphApiError).privateReplyRefused).toBe(true);
    expect(privateReplies.used()).toBe(0);
    await client.sendPrivateReply(fresh.id, { text: 'two' });
    expect(privateReplies.used()).toBe(1);
    expect(fake.state.messages).toHaveLength(1);
  });

  it('reads the user profile with follow status', async () => {
    fake.addUser({ id: '7', username: 'cy', follows: true });
    await expect(make().getUserProfile('7')).resolves.toMatchObject({ username: 'cy', is_user_follow_business: true });
  });

  it('reads and writes subscribed_apps and refreshes the token', async () => {
    const client = make();
    await expect(client.getSubscribedFields()).resolves.toEqual([]);
    await client.subscribe();
    await expect(client.getSubscribedFields()).resolves.toEqual(['comments', 'messages', 'messaging_postbacks']);
    const refreshed = await client.refreshToken();
    expect(refreshed).toMatchObject({ token_type: 'bearer', expires_in: 5_184_000 });
    expect(fake.requestsTo('/refresh_access_token')[0].query.access_token).toBe('tok');
  });

  it('maps a bad token (190) to an auth error rendered as 502', async () => {
    const err = await make({ accessToken: 'wrong' }).getAccount().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphApiError);
    expect((err as GraphApiError).kind).toBe('auth');
    expect((err as GraphApiError).getStatus()).toBe(502);
  });

  it('maps a timeout and a dropped connection', async () => {
    fake.fail({ path: '/media', mode: 'timeout' });
    const timeout = await make({ timeoutMs: 200 }).listMedia().catch((e: unknown) => e);
    expect((timeout as GraphApiError).kind).toBe('timeout');
    fake.fail({ path: '/media', mode: 'reset' });
    const reset = await make().listMedia().catch((e: unknown) => e);
    expect((reset as GraphApiError).kind).toBe('network');
  });

  it.each([4, 17, 32, 613])('pauses the account on throttling code %i; interactive calls then fail fast', async (code) => {
    fake.fail({ path: '/media', code });
    const client = make({}, { maxWaitMs: 1_000 });
    const first = await client.listMedia().catch((e: unknown) => e);
    expect((first as GraphApiError).kind).toBe('throttled');
    expect(limiter.pausedForMs).toBeGreaterThan(1_000);
    const before = fake.requests.length;
    const second = await client.listMedia().catch((e: unknown) => e);
    expect((second as GraphApiError).kind).toBe('throttled');
    expect(fake.requests.length).toBe(before);
  });

  it('background calls wait out the pause and retry instead of dropping', async () => {
    fake.addMedia();
    fake.fail({ path: '/media', code: 613 });
    const page = await make({ throttlePauseMs: 20 }, { maxWaitMs: Infinity, retryThrottled: 2 }).listMedia();
    expect(page.data).toHaveLength(1);
    expect(fake.requestsTo('/media')).toHaveLength(2);
  });

  it('pauses when X-Business-Use-Case-Usage reports a regain time', async () => {
    fake.state.usage = { '1784': [{ call_count: 100, total_time: 10, total_cputime: 10, estimated_time_to_regain_access: 2 }] };
    await make().listMedia();
    expect(limiter.pausedForMs).toBeGreaterThan(60_000);
    expect(limiter.lastUsage).toMatchObject({ percent: 100, regainMinutes: 2 });
  });
});
