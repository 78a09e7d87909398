import { TEMPLATE_REJECTED_MESSAGE, startFakeGraphApi, type FakeGraphApi } from './graph-api';

describe('fake Graph API', () => {
  let fake: FakeGraphApi;
  const token = 'tok';
  const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
    fetch(`${fake.url}${path}`, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as any, headers: r.headers }));
  const post = (path: string, body: unknown) =>
    fetch(`${fake.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  beforeAll(async () => {
    fake = await startFakeGraphApi({ accessToken: token, userId: '1784' });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('refuses a wrong token with code 190', async () => {
    const res = await get('/me?fields=user_id,username', { authorization: 'Bearer nope' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(190);
  });

  it('answers /me and accepts access_token in the query', async () => {
    const res = await get(`/me?fields=user_id,username&access_token=${token}`, {});
    expect(res.body).toMatchObject({ user_id: '1784', username: 'fake_business' });
  });

  it('lists media newest first with cursor paging', async () => {
    const old = fake.addMedia({ timestamp: '2024-01-01T00:00:00+0000' });
    const mid = fake.addMedia({ timestamp: '2024-02-01T00:00:00+0000', media_type: 'VIDEO' });
    const recent = fake.addMedia({ timestamp: '2024-03-01T00:00:00+0000' });
    const first = await get('/1784/media?fields=id,media_type,thumbnail_url&limit=2');
    expect(first.body.data.map((m: { id: string }) => m.id)).toEqual([recent.id, mid.id]);
    expect(first.body.data[1].thumbnail_url).toBe(mid.thumbnail_url);
    expect(first.body.paging.next).toContain('after=');
    const second = await get(`/1784/media?fields=id&limit=2&after=${first.body.paging.cursors.after}`);
    expect(second.body.data.map((m: { id: string }) => m.id)).toEqual([old.id]);
    expect(second.body.paging.next).toBeUndefined();
  });

  it('lists comments with replies{from} and posts public replies', async () => {
    const media = fake.addMedia();
    const c = fake.addComment(media.id, { text: 'link pls', from: { id: '55', username: 'ann' } });
    const reply = await post(`/${c.id}/replies`, { message: 'sent!' });
    expect(reply.body.id).toEqual(expect.any(String));
    const res = await get(`/${media.id}/comments?fields=id,text,timestamp,from,replies{from,text}`);
    expect(res.body.data).toEqual([
      expect.objectContaining({ id: c.id, text: 'link pls', from: { id: '55', username: 'ann' }, replies: { data: [expect.objectContaining({ id: reply.body.id, text: 'sent!', from: { id: '1784', username: 'fake_business' } })] } }),
    ]);
  });

  it('sends messages; a private reply works once per comment', async () => {
    const media = fake.addMedia();
    const c = fake.addComment(media.id, { text: 'x', from: { id: '77', username: 'bo' } });
    const first = await post('/me/messages', { recipient: { comment_id: c.id }, message: { text: 'hi' } });
    expect(first.body).toEqual({ recipient_id: '77', message_id: expect.any(String) });
    const second = await post('/me/messages', { recipient: { comment_id: c.id }, message: { text: 'hi' } });
    expect(second.status).toBe(400);
    expect(second.body.error).toMatchObject({ code: 10, error_subcode: 2534025 });
    expect(fake.state.messages).toHaveLength(1);
  });

  it('refuses button templates when told to (code 100), leaving the private reply unused', async () => {
    const media = fake.addMedia();
    const c = fake.addComment(media.id, { text: 'x', from: { id: '78', username: 'cy' } });
    const template = { attachment: { type: 'template', payload: { template_type: 'button', text: 'hi', buttons: [{ type: 'web_url', url: 'https://e.com', title: 'Go' }] } } };
    fake.state.rejectTemplates = 'private_reply';
    const refused = await post('/me/messages', { recipient: { comment_id: c.id }, message: template });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 100, message: TEMPLATE_REJECTED_MESSAGE });
    expect((await post('/me/messages', { recipient: { id: '78' }, message: template })).status).toBe(200); // DMs still take templates
    expect((await post('/me/messages', { recipient: { comment_id: c.id }, message: { text: 'hi https://e.com' } })).status).toBe(200);
    expect(fake.state.messages.map((m) => m.recipient)).toEqual([{ id: '78' }, { comment_id: c.id }]);
  });

  it('lets `after` matching requests through before a failure applies', async () => {
    fake.fail({ path: '/me', code: 2, after: 1 });
    expect((await get('/me?fields=user_id')).status).toBe(200);
    expect((await get('/me?fields=user_id')).status).toBe(500);
    expect((await get('/me?fields=user_id')).status).toBe(200);
  });

  it('lists a reply comment under its parent', async () => {
    const media = fake.addMedia();
    const parent = fake.addComment(media.id, { text: 'top' });
    const child = fake.addComment(media.id, { text: 'me too', parent_id: parent.id, from: { id: '79', username: 'dee' } });
    const own = fake.addReply(parent.id, '@dee sent!');
    const res = await get(`/${parent.id}?fields=id,replies{id,from,text}`);
    expect(res.body.replies.data.map((r: { id: string }) => r.id)).toEqual([child.id, own.id]);
  });

  it('reads user profiles with follow status, and refuses without consent', async () => {
    fake.addUser({ id: '88', username: 'cy', follows: true });
    fake.addUser({ id: '99', username: 'di', consent: false });
    expect((await get('/88?fields=username,is_user_follow_business')).body).toMatchObject({ username: 'cy', is_user_follow_business: true });
    expect((await get('/99?fields=username')).body.error.message).toContain('consent');
  });

  it('reads and writes subscribed_apps', async () => {
    expect((await get('/me/subscribed_apps')).body).toEqual({ data: [] });
    expect((await post('/me/subscribed_apps?subscribed_fields=comments,messages', {})).body).toEqual({ success: true });
    expect((await get('/me/subscribed_apps')).body.data[0].subscribed_fields).toEqual(['comments', 'messages']);
  });

  it('refreshes the token at the root path; debug_token reports the issue time and expiry of the current token', async () => {
    const before = await get(`/debug_token?input_token=${token}`);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ is_valid: true, user_id: fake.state.account.user_id });
    expect(before.body.data.expires_at - before.body.data.issued_at).toBe(5_184_000);
    const res = await fetch(`${fake.origin}/refresh_access_token?grant_type=ig_refresh_token&access_token=${token}`).then((r) => r.json() as Promise<any>);
    expect(res).toMatchObject({ token_type: 'bearer', expires_in: 5184000 });
    expect(fake.state.accessToken).toBe(res.access_token);
    const after = await fetch(`${fake.url}/debug_token?input_token=${res.access_token}`, { headers: { authorization: `Bearer ${res.access_token}` } }).then((r) => r.json() as Promise<any>);
    expect(after.data.expires_at).toBe(fake.state.tokenExpiresAt);
    expect(after.data.expires_at).toBeGreaterThanOrEqual(before.body.data.expires_at);
    fake.state.tokenExpiresAt = 0;
    const never = await fetch(`${fake.url}/debug_token?input_token=${res.access_token}`, { headers: { authorization: `Bearer ${res.access_token}` } }).then((r) => r.json() as Promise<any>);
    expect(never.data.expires_at).toBe(0);
    expect((await get('/debug_token')).status).toBe(400);
  });

  it('injects throttling errors with headers, then recovers', async () => {
    fake.fail({ path: '/media', code: 613, headers: { 'x-business-use-case-usage': '{"1":[{"call_count":100}]}' } });
    const failed = await get('/me/media');
    expect(failed.status).toBe(400);
    expect(failed.body.error.code).toBe(613);
    expect(failed.headers.get('x-business-use-case-usage')).toContain('call_count');
    expect((await get('/me/media')).status).toBe(200);
  });

  it('injects timeouts and records every request', async () => {
    fake.fail({ path: '/me', mode: 'timeout' });
    const ctrl = new AbortController();
    const pending = fetch(`${fake.url}/me`, { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal });
    while (fake.requestsTo('/me', 'GET').length === 0) await new Promise((r) => setTimeout(r, 5));
    ctrl.abort();
    await expect(pending).rejects.toThrow();
    expect(fake.requestsTo('/me', 'GET')).toHaveLength(1);
  });

  it('delay mode performs the request but holds the answer back (a send in flight)', async () => {
    const media = fake.addMedia();
    const comment = fake.addComment(media.id, { text: 'hi' });
    fake.fail({ path: '/messages', method: 'POST', mode: 'delay', delayMs: 50 });
    const first = await post('/me/messages', { recipient: { comment_id: comment.id }, message: { text: 'once' } });
    expect(first.status).toBe(200);
    expect(fake.state.messages).toHaveLength(1);
    const second = await post('/me/messages', { recipient: { comment_id: comment.id }, message: { text: 'twice' } });
    expect(second.body.error).toMatchObject({ code: 10, error_subcode: 2534025, message: 'The comment is invalid for a private reply' });
    expect(fake.state.messages).toHaveLength(1);
  });

  it('cut mode performs the request, then closes the connection; the conversation shows what was sent', async () => {
    const media = fake.addMedia();
    const c = fake.addComment(media.id, { text: 'hi', from: { id: 'u9', username: 'ann' } });
    fake.fail({ path: '/messages', method: 'POST', mode: 'cut' });
    await expect(post('/1784/messages', { recipient: { comment_id: c.id }, message: { text: 'Hello' } })).rejects.toThrow();
    expect(fake.state.messages).toHaveLength(1);
    await post('/1784/messages', { recipient: { id: 'u9' }, message: { attachment: { type: 'template', payload: { template_type: 'button', text: 'Tap', buttons: [] } } } });
    const res = await get('/1784/conversations?platform=instagram&user_id=u9&fields=messages{id,created_time,from,to,message}');
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].messages.data.map((m: { message: string; from: { id: string } }) => [m.message, m.from.id])).toEqual([
      ['Tap', '1784'],
      ['Hello', '1784'],
    ]);
    expect((await get('/1784/conversations?platform=instagram&user_id=nobody')).body).toEqual({ data: [] });
  });

  it('content publishing: container from video_url → IN_PROGRESS → FINISHED → media_publish → a REELS media', async () => {
    const created = await post('/me/media?media_type=REELS&caption=Hello&video_url=https%3A%2F%2Fcdn.example.com%2Fv.mp4&share_to_feed=true', {});
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await get(`/${id}?fields=status_code,status`)).body.status_code).toBe('IN_PROGRESS');
    const early = await post(`/me/media_publish?creation_id=${id}`, {});
    expect(early.body.error).toMatchObject({ code: 9007, error_subcode: 2207027 });
    expect((await get(`/${id}?fields=status_code`)).body.status_code).toBe('FINISHED');
    const published = await post(`/me/media_publish?creation_id=${id}`, {});
    const media = (await get(`/${published.body.id}?fields=media_product_type,caption,permalink`)).body;
    expect(media).toMatchObject({ media_product_type: 'REELS', caption: 'Hello', permalink: `https://www.instagram.com/reel/${published.body.id}/` });
    expect(fake.state.containers.get(id)).toMatchObject({ status_code: 'PUBLISHED', share_to_feed: true, media_id: published.body.id });
    expect((await post(`/me/media_publish?creation_id=${id}`, {})).body.error.code).toBe(9007);
  });

  it('content publishing: a resumable container takes its bytes at the returned uri; containerPlan ends one in ERROR', async () => {
    const created = await post('/me/media?media_type=REELS&caption=File&upload_type=resumable', {});
    const { id, uri } = created.body as { id: string; uri: string };
    expect(uri).toBe(`${fake.origin}/ig-api-upload/v23.0/${id}`);
    // Without the video the container stays IN_PROGRESS.
    await get(`/${id}?fields=status_code`);
    expect((await get(`/${id}?fields=status_code`)).body.status_code).toBe('IN_PROGRESS');
    const wrong = await fetch(uri, { method: 'POST', headers: { authorization: 'OAuth nope', offset: '0', file_size: '3' }, body: Buffer.from('abc') });
    expect(wrong.status).toBe(400);
    const up = await fetch(uri, { method: 'POST', headers: { authorization: `OAuth ${token}`, offset: '0', file_size: '3', 'content-type': 'application/octet-stream' }, body: Buffer.from('abc') });
    expect(await up.json()).toEqual({ success: true, message: 'Upload successful.' });
    expect(fake.state.containers.get(id)!.uploaded_bytes).toBe(3);

    fake.state.containerPlan.push({ polls: 0, error: 'Error: bad video (2207026)' });
    const failing = (await post('/me/media?media_type=REELS&caption=x&video_url=https%3A%2F%2Fcdn.example.com%2Fx.mp4', {})).body.id;
    expect((await get(`/${failing}?fields=status_code,status`)).body).toMatchObject({ status_code: 'ERROR', status: 'Error: bad video (2207026)' });
    expect((await post('/me/media?media_type=IMAGE', {})).body.error.code).toBe(100);
  });

  it('serves the login flow: authorize → code (once, with its redirect_uri) → short-lived → long-lived token', async () => {
    const authorize = new URL(`${fake.origin}/oauth/authorize`);
    for (const [k, v] of Object.entries({ client_id: 'fake-app-id', redirect_uri: 'https://app.example.com/cb', response_type: 'code', scope: 'instagram_business_basic', state: 's1' })) authorize.searchParams.set(k, v);
    const redirect = await fetch(authorize, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const back = new URL(redirect.headers.get('location')!);
    expect(back.hash).toBe('#_');
    expect(back.searchParams.get('state')).toBe('s1');
    const exchange = (redirectUri: string) =>
      fetch(`${fake.origin}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'fake-app-id', client_secret: 'fake-app-secret', grant_type: 'authorization_code', redirect_uri: redirectUri, code: back.searchParams.get('code')! }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    expect((await exchange('https://other.example.com/cb')).body.error_message).toMatch(/redirect_uri/);
    const short = await exchange('https://app.example.com/cb');
    expect(short.body.data[0]).toMatchObject({ access_token: expect.stringMatching(/^short-/), user_id: '1784' });
    expect((await exchange('https://app.example.com/cb')).status).toBe(400); // a code works once
    const long = { body: (await (await fetch(`${fake.origin}/access_token?grant_type=ig_exchange_token&client_secret=fake-app-secret&access_token=${short.body.data[0].access_token}`)).json()) as any };
    expect(long.body).toMatchObject({ access_token: fake.state.accessToken, token_type: 'bearer', expires_in: 5_183_944 });
    expect((await fetch(`${fake.origin}/me?fields=user_id`, { headers: { authorization: `Bearer ${long.body.access_token}` } })).status).toBe(400); // unversioned
    const denied = await fetch(`${authorize.toString()}&deny=1`, { redirect: 'manual' });
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});
