import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeYouTubeApi, type FakeYouTubeApi } from '@platform/testing';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VideosService } from '../videos/videos.service';
import { TOOLS } from './mcp-tools';
import { McpSessions } from './mcp-sessions';

type Json = unknown;

/** Every field path of a JSON value (`a.b`, `list[].c`): what "identical field names" compares. */
function fieldNames(value: Json, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) fieldNames(item, `${prefix}[]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${k}` : k;
      out.add(path);
      fieldNames(v, path, out);
    }
  }
  return out;
}

/** The MCP server at /mcp against the REST API: same operations, same fields, same validation. */
describe('MCP server (e2e)', () => {
  let ctx: AutomationTestContext;
  let yt: FakeYouTubeApi;
  let client: Client;
  let base: string;
  const called = new Set<string>();
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const rest = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown) => {
    const req = ctx.t.http[method](`/api/v1${path}`).set(auth());
    return body === undefined ? req : req.send(body as object);
  };

  async function tool(name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; value: Json; structured: unknown }> {
    called.add(name);
    const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: unknown };
    return { isError: res.isError === true, value: JSON.parse(res.content[0].text), structured: res.structuredContent };
  }

  /**
   * REST answer and tool output: identical field names; the tool's structuredContent (read and
   * validated against the tool's output schema by the SDK's client) equals its text — an array body as
   * `{items}` — and, where the answers are the same resource, the REST body.
   */
  async function same(name: string, args: Record<string, unknown>, restCall: () => Promise<{ status: number; body: Json }>, opts: { values?: boolean } = {}): Promise<{ restBody: any; toolBody: any }> {
    const r = await restCall();
    expect(r.status).toBeLessThan(300);
    const t = await tool(name, args);
    expect(t.isError).toBe(false);
    expect([...fieldNames(t.value)].sort()).toEqual([...fieldNames(r.body)].sort());
    const wrap = (body: Json) => (Array.isArray(body) ? { items: body } : body);
    expect(t.structured).toEqual(wrap(t.value));
    if (opts.values) {
      expect(t.value).toEqual(r.body);
      expect(t.structured).toEqual(wrap(r.body));
    }
    return { restBody: r.body, toolBody: t.value };
  }

  beforeAll(async () => {
    yt = await startFakeYouTubeApi();
    ctx = await startAutomationApp({
      PUBLISH_POLL_MS: '60000',
      YOUTUBE_API_URL: yt.url,
      YOUTUBE_TOKEN_URL: yt.tokenUrl,
      YOUTUBE_CLIENT_ID: yt.clientId,
      YOUTUBE_CLIENT_SECRET: yt.clientSecret,
      YOUTUBE_REFRESH_TOKEN: yt.refreshToken,
      BILLING_PLAN: 'pro',
      BILLING_RUNS_PER_MONTH: '5000',
      BILLING_MESSAGES_PER_MONTH: '0',
      // upload_video {video_url} from the test's loopback file server.
      AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: 'true',
    });
    await ctx.t.app.listen(0, '127.0.0.1');
    base = (await ctx.t.app.getUrl()).replace('[::1]', '127.0.0.1');
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth() } }));
  });
  afterAll(async () => {
    await client?.close();
    await ctx?.close();
    await yt?.close();
  });

  it('needs the bearer key; is stateless (GET and DELETE answer 405)', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const noKey = await ctx.t.http.post('/mcp').set('accept', 'application/json, text/event-stream').send(init);
    expect(noKey.status).toBe(401);
    expect(noKey.body).toEqual({ error: expect.any(String) });
    expect((await ctx.t.http.post('/mcp').set({ authorization: 'Bearer wrong-key-000000000000' }).send(init)).status).toBe(401);
    const get = await ctx.t.http.get('/mcp').set(auth());
    expect(get.status).toBe(405);
    expect(get.body.error).toMatch(/stateless/);
    expect((await ctx.t.http.delete('/mcp').set(auth())).status).toBe(405);
    expect(get.header['mcp-session-id']).toBeUndefined();
    // Another account's key sees its own data through the tools.
    const other = new Client({ name: 'b', version: '1' });
    await other.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ctx.keyB}` } } }));
    await rest('post', '/automations', { name: 'Only A', keywords: ['a'] }).expect(201);
    const listed = (await other.callTool({ name: 'list_automations', arguments: {} })) as { content: Array<{ text: string }> };
    expect(JSON.parse(listed.content[0].text)).toEqual([]);
    await other.close();
  });

  it('lists one tool per REST operation plus check_follower, subscribe_webhooks, refresh_token, billing_status', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(names).toEqual(expect.arrayContaining(['get_status', 'list_posts', 'list_automations', 'get_automation', 'create_automation', 'go_live', 'list_contacts', 'list_events', 'get_funnel', 'preview', 'finish_migration', 'attach_automation_to_reel']));
    expect(TOOLS.filter((t) => !t.rest).map((t) => t.name).sort()).toEqual(['billing_status', 'check_follower', 'refresh_token', 'subscribe_webhooks', 'upload_video_chunk']);

    // Every operation of the REST API (its OpenAPI document) has its tool, and every tool's operation exists.
    const doc = (await ctx.t.http.get('/api/docs-json')).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(TOOLS.filter((t) => t.rest).map((t) => t.rest).sort()).toEqual(operations);

    // Inputs are described from the REST operation: path and query parameters and the body fields.
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema as unknown as { properties: Record<string, any>; required?: string[]; additionalProperties: boolean };
    expect(schema('get_automation')).toMatchObject({ required: ['id'], additionalProperties: false });
    expect(Object.keys(schema('create_automation').properties)).toEqual(expect.arrayContaining(['name', 'keywords', 'extra_links', 'follow_up_minutes']));
    expect(schema('create_automation').properties.extra_links.items.properties).toHaveProperty('url');
    expect(Object.keys(schema('list_posts').properties)).toEqual(['limit']);
    expect(Object.keys(schema('update_automation').properties)).toEqual(expect.arrayContaining(['id', 'name']));
    expect(schema('create_planned_post').properties.targets.items.properties.platform.enum).toEqual(['instagram', 'youtube']);

    // Outputs are described too (JSON Schema of the REST answer; an array answer as {items}), and every tool carries its hints.
    for (const t of tools) {
      expect(t.outputSchema).toMatchObject({ type: 'object' });
      expect(t.annotations).toEqual({ title: expect.any(String), readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean), openWorldHint: expect.any(Boolean) });
    }
    const tool = (name: string) => tools.find((t) => t.name === name)!;
    expect(Object.keys((tool('get_automation').outputSchema as any).properties)).toEqual(expect.arrayContaining(['id', 'name', 'keywords', 'webhook_secret', 'created_at']));
    expect((tool('get_status').outputSchema as any).properties.problem.type).toEqual(['string', 'null']);
    expect((tool('list_automations').outputSchema as any)).toMatchObject({ required: ['items'], properties: { items: { type: 'array' } } });
    expect(Object.keys((tool('billing_status').outputSchema as any).properties)).toEqual(expect.arrayContaining(['plan', 'runs', 'over_limit']));
    expect(tool('get_status').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
    expect(tool('list_automations').annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(tool('create_automation').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(tool('delete_automation').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(tool('preview').annotations).toMatchObject({ readOnlyHint: true });
    expect(tool('refresh_token').annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
  });

  it('validates tool inputs with the REST rules and messages', async () => {
    const pairs: Array<[string, Record<string, unknown>, () => Promise<{ status: number; body: any }>]> = [
      ['create_automation', { name: 'x', extra_links: [{ title: 'a', url: 'https://a.example' }, { title: 'b', url: 'https://b.example' }, { title: 'c', url: 'https://c.example' }] }, () => rest('post', '/automations', { name: 'x', extra_links: [{ title: 'a', url: 'https://a.example' }, { title: 'b', url: 'https://b.example' }, { title: 'c', url: 'https://c.example' }] })],
      ['create_automation', { name: 'x', unknown_field: 1 }, () => rest('post', '/automations', { name: 'x', unknown_field: 1 })],
      ['create_automation', { name: 'nul\u0000' }, () => rest('post', '/automations', { name: 'nul\u0000' })],
      ['get_automation', { id: '1e3' }, () => rest('get', '/automations/1e3')],
      ['get_automation', { id: 999999 }, () => rest('get', '/automations/999999')],
      ['list_posts', { limit: 51 }, () => rest('get', '/posts?limit=51')],
      ['create_reel', { publish_at: '2026-12-01T18:00:00', caption: 'c', source: { video_url: 'https://cdn.example.com/a.mp4' } }, () => rest('post', '/reels', { publish_at: '2026-12-01T18:00:00', caption: 'c', source: { video_url: 'https://cdn.example.com/a.mp4' } })],
      ['create_planned_post', { publish_at: '2026-12-01T18:00:00Z', caption: 'c', source: { video_url: 'https://cdn.example.com/a.mp4' }, targets: [{ platform: 'tiktok' }] }, () => rest('post', '/planned_posts', { publish_at: '2026-12-01T18:00:00Z', caption: 'c', source: { video_url: 'https://cdn.example.com/a.mp4' }, targets: [{ platform: 'tiktok' }] })],
    ];
    for (const [name, args, restCall] of pairs) {
      const r = await restCall();
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      const t = await tool(name, args);
      expect(t.isError).toBe(true);
      expect(t.value).toEqual(r.body);
    }
    const t = await tool('get_status', { surprise: true });
    expect(t).toMatchObject({ isError: true, value: { error: 'property surprise should not exist' } });
  });

  it('every tool answers with the field names of its REST operation', async () => {
    const fake = ctx.fakeA;
    const post = fake.addMedia({ caption: 'A post' });
    fake.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'A reel' });
    fake.addComment(post.id, { text: 'nice', from: { id: '5550001', username: 'ann' } });
    fake.addUser({ id: '5550001', username: 'ann', follows: true });
    await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET token_expires_at = now() + interval '3 days', token_refreshed_at = now() - interval '50 days' WHERE id = $1`, [ctx.accountId('a')]);

    await same('get_status', {}, () => rest('get', '/status'));
    await same('list_posts', { limit: 5 }, () => rest('get', '/posts?limit=5'), { values: true });
    await same('list_comments', { id: post.id }, () => rest('get', `/posts/${post.id}/comments`), { values: true });

    const input = { name: 'Guide', keywords: ['guide'], link_url: 'https://example.com/guide', follow_gate: true, extra_links: [{ title: 'Shop', url: 'https://example.com/shop' }] };
    const created = await same('create_automation', input, () => rest('post', '/automations', input));
    const restId: number = created.restBody.automation.id;
    const toolId: number = created.toolBody.automation.id;
    expect(toolId).not.toBe(restId);
    await same('list_automations', {}, () => rest('get', '/automations'), { values: true });
    await same('get_automation', { id: restId }, () => rest('get', `/automations/${restId}`), { values: true });
    await same('update_automation', { id: toolId, name: 'Guide 2' }, () => rest('patch', `/automations/${restId}`, { name: 'Guide 2' }));
    await same('go_live', { id: toolId }, () => rest('post', `/automations/${restId}/go_live`));
    await same('pause_automation', { id: toolId }, () => rest('post', `/automations/${restId}/pause`));
    await same('resume_automation', { id: toolId }, () => rest('post', `/automations/${restId}/resume`));
    await same('get_funnel', { id: restId }, () => rest('get', `/automations/${restId}/funnel`), { values: true });
    await same('list_funnels', {}, () => rest('get', '/funnel'), { values: true });

    const imported = await same('import_automations', { source: 'OtherTool', automations: [{ name: 'Old', keywords: ['old'] }], contacts: [{ ig_id: '5550002', username: 'bo' }] }, () =>
      rest('post', '/automations/import', { source: 'OtherTool', automations: [{ name: 'Old', keywords: ['old'] }], contacts: [{ ig_id: '5550003', username: 'cy' }] }),
    );
    await same('finish_migration', { id: imported.toolBody.automations[0].id }, () => rest('post', `/automations/${imported.restBody.automations[0].id}/finish_migration`));

    // Two waiting next_post automations with a suggested reel each.
    const reel = fake.state.media.find((m) => m.media_product_type === 'REELS')!;
    const waitingA = (await rest('post', '/automations', { name: 'W1', next_post: true, keywords: ['w'] })).body.automation.id;
    const waitingB = (await rest('post', '/automations', { name: 'W2', next_post: true, keywords: ['w'] })).body.automation.id;
    await ctx.ds.query(`UPDATE ${ctx.schema}.automations SET reel_suggestion = $1::jsonb WHERE id = ANY($2::int[])`, [
      JSON.stringify({ media_id: reel.id, permalink: reel.permalink, reason: 'two reels matched', at: new Date().toISOString() }),
      [waitingA, waitingB],
    ]);
    await same('attach_automation_to_reel', { id: waitingB, media_id: reel.id }, () => rest('post', `/automations/${waitingA}/attach`, { media_id: reel.id }));

    await same('list_contacts', { limit: 10 }, () => rest('get', '/contacts?limit=10'), { values: true });
    await same('get_contact', { ig_id: '5550002' }, () => rest('get', '/contacts/5550002'), { values: true });
    await same('update_contact', { ig_id: '5550002', tags: ['vip'], notes: 'met at fair' }, () => rest('patch', '/contacts/5550003', { tags: ['vip'], notes: 'met at fair' }));
    await same('list_events', { limit: 5 }, () => rest('get', '/events?limit=5'), { values: true });
    await same('preview', { text: 'GUIDE please', username: 'ann' }, () => rest('post', '/preview', { text: 'GUIDE please', username: 'ann' }), { values: true });

    const bytes = Buffer.alloc(2048, 1);
    const videos = await same('upload_video', { content_base64: bytes.toString('base64'), content_type: 'video/mp4' }, async () => {
      const r = await ctx.t.http.post('/api/v1/videos').set(auth()).set('content-type', 'video/mp4').send(bytes);
      return { status: r.status, body: r.body };
    });
    expect(videos.toolBody.size_mb).toBe(videos.restBody.size_mb);

    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const reelInput = { publish_at: inAnHour, caption: 'Soon', source: { video_id: videos.toolBody.video_id }, share_to_feed: false };
    const reels = await same('create_reel', reelInput, () => rest('post', '/reels', { ...reelInput, source: { video_id: videos.restBody.video_id } }));
    await same('list_reels', {}, () => rest('get', '/reels'), { values: true });
    await same('get_reel', { id: reels.restBody.id }, () => rest('get', `/reels/${reels.restBody.id}`), { values: true });
    await same('cancel_reel', { id: reels.toolBody.id }, () => rest('post', `/reels/${reels.restBody.id}/cancel`));

    const postInput = { publish_at: inAnHour, caption: 'Both', source: { video_url: 'https://cdn.example.com/both.mp4' }, targets: [{ platform: 'instagram' }, { platform: 'youtube' }] };
    const planned = await same('create_planned_post', { ...postInput, idempotency_key: 'tool-1' }, () => rest('post', '/planned_posts', { ...postInput, idempotency_key: 'rest-1' }));
    const dup = await tool('create_planned_post', { ...postInput, idempotency_key: 'rest-1' });
    expect(dup.value).toMatchObject({ id: planned.restBody.id, duplicate: true });
    await same('list_planned_posts', {}, () => rest('get', '/planned_posts'), { values: true });
    await same('get_planned_post', { id: planned.toolBody.id }, () => rest('get', `/planned_posts/${planned.toolBody.id}`), { values: true });
    await same('cancel_planned_post', { id: planned.toolBody.id }, () => rest('post', `/planned_posts/${planned.restBody.id}/cancel`));

    const deleted = await same('delete_automation', { id: toolId }, () => rest('delete', `/automations/${restId}`));
    expect(deleted.toolBody).toEqual({});
    expect((await tool('get_automation', { id: toolId })).isError).toBe(true);

    // The tools that exist only here.
    const follower = await tool('check_follower', { ig_id: '5550001' });
    expect(follower).toMatchObject({ isError: false, value: { ig_id: '5550001', username: 'ann', follows: 1, reason: null } });
    const sub = await tool('subscribe_webhooks', {});
    expect(sub.value).toEqual({ subscribed_fields: ['comments', 'messages', 'messaging_postbacks'], webhook_problem: null });
    expect(fake.state.subscribedFields).toEqual(['comments', 'messages', 'messaging_postbacks']);
    expect((await tool('subscribe_webhooks', { fields: ['nope'] })).isError).toBe(true);

    const before = (await rest('get', '/status')).body.token_expires_in_days;
    const refreshed = await tool('refresh_token', {});
    expect(refreshed.isError).toBe(false);
    expect(refreshed.value).toMatchObject({ account_status: 'connected' });
    // A fresh 60-day token in whole days: 60 at the instant of the refresh, 59 a millisecond later on another clock reading.
    expect([59, 60]).toContain((refreshed.value as { token_expires_in_days: number }).token_expires_in_days);
    const status = (await rest('get', '/status')).body;
    expect(status.token_expires_at).toBe((refreshed.value as { token_expires_at: string }).token_expires_at);
    expect(status.token_expires_in_days).toBeGreaterThan(before);

    const billing = await tool('billing_status', {});
    expect(billing.value).toEqual({
      plan: 'pro',
      period_start: expect.any(String),
      period_end: expect.any(String),
      runs: { used: 0, limit: 5000, remaining: 5000 },
      messages: { used: 0, limit: null, remaining: null },
      automations: { used: expect.any(Number), limit: 10, remaining: expect.any(Number) },
      over_limit: expect.any(Boolean),
    });

    expect([...called].sort()).toEqual(TOOLS.map((t) => t.name).filter((n) => n !== 'upload_video_chunk').sort());
  });

  it('sessions (stateful Streamable HTTP at /mcp/session): opened by initialize, bound to the key, ended by DELETE', async () => {
    const sessions = ctx.t.app.get(McpSessions);
    const before = sessions.size;
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/session`), { requestInit: { headers: auth() } });
    const stateful = new Client({ name: 'stateful', version: '1.0.0' });
    await stateful.connect(transport);
    const sid = transport.sessionId!;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(sessions.size).toBe(before + 1);

    // The same tools, the same answers: structuredContent equal to the REST body.
    const res = (await stateful.callTool({ name: 'list_automations', arguments: {} })) as { structuredContent?: unknown };
    expect(res.structuredContent).toEqual({ items: (await rest('get', '/automations')).body });
    const billing = (await stateful.callTool({ name: 'billing_status', arguments: {} })) as { structuredContent?: unknown; content: Array<{ text: string }> };
    expect(billing.structuredContent).toEqual(JSON.parse(billing.content[0].text));

    // Without a session: only initialize; another key cannot use this session.
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
    const accept = 'application/json, text/event-stream';
    expect((await ctx.t.http.post('/mcp/session').set(auth()).set('accept', accept).send(list)).status).toBe(400);
    const foreign = await ctx.t.http.post('/mcp/session').set({ authorization: `Bearer ${ctx.keyB}`, 'mcp-session-id': sid, accept }).send(list);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatch(/not found/);
    expect((await ctx.t.http.post('/mcp/session').set('mcp-session-id', sid).set('accept', accept).send(list)).status).toBe(401);

    await transport.terminateSession();
    await waitUntil(() => sessions.size === before);
    expect((await ctx.t.http.post('/mcp/session').set(auth()).set({ 'mcp-session-id': sid, accept }).send(list)).status).toBe(404);
    await stateful.close();

    // An idle session is closed by the sweep.
    const idle = new StreamableHTTPClientTransport(new URL(`${base}/mcp/session`), { requestInit: { headers: auth() } });
    const idleClient = new Client({ name: 'idle', version: '1.0.0' });
    await idleClient.connect(idle);
    expect(sessions.size).toBe(before + 1);
    await expect(sessions.sweep(Date.now() + 31 * 60_000)).resolves.toBe(1);
    expect(sessions.size).toBe(before);
    await idleClient.close();
  });

  it('upload_video by URL and in chunks (JSON calls stay under the 1 MB body limit): the same video answer as POST /videos', async () => {
    const file = Buffer.alloc(1_500_000);
    for (let i = 0; i < file.length; i++) file[i] = (i * 31) % 251;
    const server = createServer((req, res) => {
      if (req.url === '/clip.mp4') res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(file.length) }).end(file);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const byUrl = await tool('upload_video', { video_url: `${origin}/clip.mp4` });
      expect(byUrl.isError).toBe(false);
      expect(byUrl.structured).toEqual({ video_id: expect.any(String), size_mb: 1.43, file_status: 'stored', content_type: 'video/mp4', created_at: expect.any(String) });
      const missing = await tool('upload_video', { video_url: `${origin}/nope.mp4` });
      expect(missing).toMatchObject({ isError: true, value: { error: 'video_url cannot be downloaded: HTTP 404' } });

      const pieces = [file.subarray(0, 600_000), file.subarray(600_000, 1_200_000), file.subarray(1_200_000)];
      const first = await tool('upload_video_chunk', { offset: 0, chunk_base64: pieces[0].toString('base64') });
      expect(first.structured).toEqual({ upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/), received_bytes: 600_000 });
      const uploadId = (first.value as { upload_id: string }).upload_id;
      const gap = await tool('upload_video_chunk', { upload_id: uploadId, offset: 700_000, chunk_base64: pieces[1].toString('base64') });
      expect(gap).toMatchObject({ isError: true, value: { error: expect.stringContaining('send the chunk at offset 600000') } });
      await tool('upload_video_chunk', { upload_id: uploadId, offset: 600_000, chunk_base64: pieces[1].toString('base64') });
      const retried = await tool('upload_video_chunk', { upload_id: uploadId, offset: 600_000, chunk_base64: pieces[1].toString('base64') });
      expect(retried.value).toEqual({ upload_id: uploadId, received_bytes: 1_200_000 });
      await tool('upload_video_chunk', { upload_id: uploadId, offset: 1_200_000, chunk_base64: pieces[2].toString('base64') });
      const stored = await tool('upload_video', { upload_id: uploadId, content_type: 'video/quicktime' });
      expect(stored.structured).toEqual({ video_id: expect.any(String), size_mb: 1.43, file_status: 'stored', content_type: 'video/quicktime', created_at: expect.any(String) });
      const videos = ctx.t.app.get(VideosService);
      const row = (await videos.find(ctx.accountId('a'), (stored.value as { video_id: string }).video_id))!;
      const chunks: Buffer[] = [];
      for await (const c of videos.bytes(row).open()) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).equals(file)).toBe(true);
      expect((await tool('upload_video', { upload_id: uploadId })).isError).toBe(true); // finished once
      expect((await tool('upload_video', { upload_id: uploadId, video_url: `${origin}/clip.mp4` })).value).toEqual({ error: 'Give exactly one of content_base64, video_url and upload_id' });
      // The stored video is a source like any upload.
      const reel = await tool('create_reel', { publish_at: new Date(Date.now() + 7_200_000).toISOString(), caption: 'Chunked', source: { video_id: row.id } });
      expect(reel.isError).toBe(false);
      expect([...called].sort()).toEqual(TOOLS.map((t) => t.name).sort()); // every tool was called
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
