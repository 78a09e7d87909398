// knowledge-mcp in front of a real knowledge-api (built, in a child process, with a site crawled in
// the test): the official MCP SDK client over Streamable HTTP (stateful, and a stateless server beside
// it) and over the deprecated SSE transport lists the tools and calls them; access checks refuse a
// missing key, a foreign Host and a foreign Origin.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from '@platform/testing';
import { RETRY_CODE, startDocsSite, startKnowledgeApi, type RunningKnowledgeApi } from '../test/knowledge-api';
import type { KnowledgeMcpConfig } from './config';
import { knowledgeMcpService } from './service';

const MCP_KEY = 'mcp-test-key-0123456789abcdef';
const TOOL_NAMES = [
  'perform_rag_query',
  'search_code_examples',
  'get_available_sources',
  'manage_project',
  'manage_task',
  'manage_document',
  'manage_versions',
  'get_project_features',
  'health_check',
  'session_info',
].sort();

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

async function listening(t: TestApp<KnowledgeMcpConfig>): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}

const auth = { Authorization: `Bearer ${MCP_KEY}` };

async function streamableClient(base: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth } });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function sseClient(base: string): Promise<Client> {
  const transport = new SSEClientTransport(new URL(`${base}/sse`), {
    requestInit: { headers: auth },
    eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...auth } }) },
  });
  const client = new Client({ name: 'e2e-sse', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('knowledge-mcp (e2e, against knowledge-api)', () => {
  let api: RunningKnowledgeApi;
  let site: Awaited<ReturnType<typeof startDocsSite>>;
  let t: TestApp<KnowledgeMcpConfig>;
  let stateless: TestApp<KnowledgeMcpConfig>;
  let base: string;
  let statelessBase: string;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    [api, site] = await Promise.all([startKnowledgeApi(), startDocsSite()]);
    await api.crawl(`${site.origin}/`);
    const env = { KNOWLEDGE_API_URL: api.url, KNOWLEDGE_API_KEY: api.key, KNOWLEDGE_MCP_API_KEY: MCP_KEY, MCP_ALLOWED_ORIGINS: 'http://localhost:5173' };
    t = await createTestApp(knowledgeMcpService, env);
    base = await listening(t);
    // knowledge-api's MCP configuration names the transports a server serves from its next start on.
    const saved = await api.call('POST', '/api/mcp/config', { transport: 'streamable-http' });
    if (saved.status !== 200) throw new Error(`POST /api/mcp/config answered ${saved.status}`);
    stateless = await createTestApp(knowledgeMcpService, { ...env, MCP_SESSION_MODE: 'stateless', MCP_TRANSPORT: 'all' });
    statelessBase = await listening(stateless);
    ({ client, transport } = await streamableClient(base));
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await stateless?.close();
    await api?.close();
    await site?.close();
  });

  it('lists the ten tools, each with input and output schemas and annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint).toBe('boolean');
      expect(tool._meta?.module).toMatch(/^(rag|projects|server)$/);
    }
    const rag = tools.find((x) => x.name === 'perform_rag_query')!;
    expect(rag.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(rag.inputSchema.required).toEqual(['query']);
    expect(tools.find((x) => x.name === 'manage_project')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('perform_rag_query searches the crawled pages through knowledge-api (structured content)', async () => {
    const res = (await client.callTool({ name: 'perform_rag_query', arguments: { query: 'heliograph mirrors sunlight', match_count: 3 } })) as ToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ success: true, query: 'heliograph mirrors sunlight' });
    expect(res.structuredContent.results[0].url).toBe(`${site.origin}/`);
    expect(res.structuredContent.results[0].content).toContain('mirrors');
    expect(JSON.parse(res.content[0].text!)).toEqual(res.structuredContent);
  });

  it('search_code_examples finds the crawled code example by what it does and its language', async () => {
    const res = (await client.callTool({ name: 'search_code_examples', arguments: { query: 'exponential backoff', language: 'python' } })) as ToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent.total_results).toBe(1);
    expect(res.structuredContent.results[0]).toMatchObject({ language: 'python', url: `${site.origin}/retries` });
    expect(res.structuredContent.results[0].content).toContain('def fetch_with_backoff');
    expect(RETRY_CODE).toContain('def fetch_with_backoff');
  });

  it('get_available_sources names the crawled source, and its id filters the search', async () => {
    const res = (await client.callTool({ name: 'get_available_sources', arguments: {} })) as ToolResult;
    expect(res.structuredContent.total_count).toBe(1);
    const sourceId = res.structuredContent.sources[0].source_id as string;
    const filtered = (await client.callTool({ name: 'perform_rag_query', arguments: { query: 'heliograph', source: 'no-such-source' } })) as ToolResult;
    expect(filtered.structuredContent.results).toEqual([]);
    const own = (await client.callTool({ name: 'perform_rag_query', arguments: { query: 'heliograph', source: sourceId } })) as ToolResult;
    expect(own.structuredContent.results.length).toBeGreaterThan(0);
  });

  it('answers knowledge-api\'s refusals and bad arguments as tool errors, not protocol errors', async () => {
    const missing = (await client.callTool({ name: 'manage_project', arguments: { action: 'get' } })) as ToolResult;
    expect(missing.isError).toBe(true);
    expect(JSON.parse(missing.content[0].text!)).toMatchObject({ success: false, error: 'project_id is required for action "get"' });
    const invalid = (await client.callTool({ name: 'perform_rag_query', arguments: { query: 'x', match_count: 500 } })) as ToolResult;
    expect(invalid.isError).toBe(true);
  });

  it('health_check reports knowledge-api behind it; session_info reports this session', async () => {
    const health = (await client.callTool({ name: 'health_check', arguments: {} })) as ToolResult;
    expect(health.structuredContent).toMatchObject({ success: true, status: 'healthy', knowledge_api: { url: api.url, status: 'ok', service: 'knowledge-api' } });
    const info = (await client.callTool({ name: 'session_info', arguments: {} })) as ToolResult;
    expect(info.structuredContent).toMatchObject({ success: true, session_id: transport.sessionId, transport: 'streamable-http', session_mode: 'stateful' });
    expect(info.structuredContent.active_sessions).toBeGreaterThanOrEqual(1);
  });

  it('serves older clients over the deprecated SSE transport', async () => {
    const sse = await sseClient(base);
    try {
      const { tools } = await sse.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(TOOL_NAMES);
      const res = (await sse.callTool({ name: 'perform_rag_query', arguments: { query: 'heliograph' } })) as ToolResult;
      expect(res.structuredContent.results[0].url).toBe(`${site.origin}/`);
      const codes = (await sse.callTool({ name: 'search_code_examples', arguments: { query: 'retry download backoff' } })) as ToolResult;
      expect(codes.structuredContent.results[0].content).toContain('fetch_with_backoff');
      const info = (await sse.callTool({ name: 'session_info', arguments: {} })) as ToolResult;
      expect(info.structuredContent).toMatchObject({ transport: 'sse' });
    } finally {
      await sse.close();
    }
  });

  it('refuses a missing or wrong key (401), a foreign Host or Origin (403)', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toEqual({ error: expect.stringContaining('KNOWLEDGE_MCP_API_KEY') });
    expect((await post({ authorization: 'Bearer wrong-key-0123456789abcdef' })).status).toBe(401);
    expect((await fetch(`${base}/sse`, { headers: {} })).status).toBe(401);
    await expect(new Client({ name: 'anonymous', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))).rejects.toThrow();
    expect((await post({ ...auth, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ ...auth, origin: 'http://localhost:5173' })).status).toBe(200);
    const rebound = await new Promise<number>((resolve, reject) => {
      // fetch() does not let a caller set Host: a raw request does.
      const req = request(`${base}/mcp`, { method: 'POST', headers: { host: 'attacker.example', ...auth, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(rebound).toBe(403);
  });

  it('ends a session on DELETE: its id then answers 404', async () => {
    const { client: other, transport: tr } = await streamableClient(base);
    const id = tr.sessionId!;
    await tr.terminateSession();
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    await other.close();
  });

  it('stateless mode: every POST stands alone (no session id), GET answers 405; SSE off as knowledge-api\'s configuration said at its start', async () => {
    const { client: c, transport: tr } = await streamableClient(statelessBase);
    try {
      expect(tr.sessionId).toBeUndefined();
      const res = (await c.callTool({ name: 'perform_rag_query', arguments: { query: 'heliograph' } })) as ToolResult;
      expect(res.structuredContent.results.length).toBeGreaterThan(0);
      const info = (await c.callTool({ name: 'session_info', arguments: {} })) as ToolResult;
      expect(info.structuredContent).toMatchObject({ session_id: null, session_mode: 'stateless' });
    } finally {
      await c.close();
    }
    expect((await fetch(`${statelessBase}/mcp`, { headers: auth })).status).toBe(405);
    const sse = await fetch(`${statelessBase}/sse`, { headers: auth });
    expect(sse.status).toBe(404);
    expect(await sse.json()).toEqual({ error: expect.stringContaining('streamable-http transport only (knowledge-api)') });
  });

  it('answers /healthz, /readyz (knowledge-api reachable) and its Swagger document', async () => {
    await t.http.get('/healthz').expect(200, { status: 'ok' });
    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body.checks).toEqual({ 'knowledge-api': { status: 'up' } });
    const doc = await t.http.get('/api/docs-json').expect(200);
    expect(doc.body.info.title).toBe('knowledge-mcp');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/mcp', '/sse', '/messages']));
  });
});
