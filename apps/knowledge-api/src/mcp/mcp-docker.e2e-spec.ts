// `/api/mcp/*` against the fake Docker Engine API, with the real MCP server (apps/knowledge-mcp, built,
// in a child process) standing for the process of the container the engine pretends to run: its
// output is the container's log. One knowledge-api boot: status, config, start, tools over MCP (equal
// to the catalogue, and what the official SDK client lists over Streamable HTTP and SSE, with a
// search of crawled data), logs followed (REST and `/logs`), clear, stop, not_found, docker_unavailable.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, freePort, startFakeDockerEngine, type FakeDockerEngine, type TestApp } from '@platform/testing';
import { io, type Socket } from 'socket.io-client';
import { page, startSite, type TestSite } from '../../test/test-site';
import type { KnowledgeApiConfig } from '../config';
import { knowledgeApiService } from '../service';
import { MCP_TOOL_CATALOGUE } from './mcp-tool-catalogue';
import { startMcpServer, type RunningMcpServer } from './test/mcp-server-process';

const KEY = 'knowledge-api-key-0123456789abcdef';
const MCP_KEY = 'knowledge-mcp-key-0123456789abcdef';
const CODE = `def fetch_with_backoff(url, attempts=5):\n    delay = 0.5\n    for attempt in range(attempts):\n        try:\n            return download(url)\n        except OSError:\n            if attempt == attempts - 1:\n                raise\n            sleep(delay)\n            delay *= 2\n    # exponential backoff between attempts keeps a busy server from being hammered`;

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type ToolResult = { structuredContent?: any; isError?: boolean };

describe('MCP control against the fake Docker Engine API (e2e)', () => {
  let engine: FakeDockerEngine;
  let t: TestApp<KnowledgeApiConfig>;
  let apiUrl: string;
  let mcpPort: number;
  let server: RunningMcpServer | undefined;
  let site: TestSite;
  let socket: Socket | undefined;
  const get = (path: string) => t.http.get(path).set('x-api-key', KEY);
  const post = (path: string, body: object = {}) => t.http.post(path).set('x-api-key', KEY).send(body);

  beforeAll(async () => {
    engine = await startFakeDockerEngine({ containers: [{ name: 'knowledge-mcp', image: 'platform/knowledge-mcp:local' }] });
    mcpPort = await freePort();
    t = await createTestApp(knowledgeApiService, {
      KNOWLEDGE_API_KEY: KEY,
      DOCKER_HOST: engine.dockerHost,
      MCP_CONTAINER: 'knowledge-mcp',
      MCP_HOST: '127.0.0.1',
      MCP_PORT: '9',
      MCP_ENGINE_TIMEOUT_MS: '2000',
      MCP_LOG_POLL_MS: '100',
      KNOWLEDGE_MCP_API_KEY: MCP_KEY,
      CRAWL_ALLOW_PRIVATE: 'true',
      CRAWL_HOST_DELAY_MS: '0',
      CRAWL_POLL_MS: '100',
    });
    await t.app.listen(0, '127.0.0.1');
    apiUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    site = await startSite({
      '/': page('Heliograph manual', 'heliograph mirrors sunlight', ['/retries']),
      '/retries': page('Retrying downloads', 'retry downloads backoff', [], `<pre><code class="language-python">${CODE}</code></pre>`),
    });
    const crawl = await post('/api/knowledge-items/crawl', { url: `${site.origin}/`, knowledge_type: 'technical', max_depth: 2 }).expect(200);
    await eventually(() => get(`/api/progress/${crawl.body.progress_id}`).then((r) => r.body.status), (s) => s === 'completed', 'crawl');
  }, 120_000);

  afterAll(async () => {
    socket?.close();
    await server?.stop();
    await t?.close();
    await site?.close();
    await engine?.close();
  });

  it('reports the stopped container, and the catalogue of tools while no server runs', async () => {
    const status = await get('/api/mcp/status').expect(200);
    expect(status.body).toEqual({ status: 'stopped', container_id: engine.container('knowledge-mcp').Id, container_name: 'knowledge-mcp', uptime: null, start_time: null, health: { status: 'stopped', port: 9, transport: 'all' } });
    const tools = await get('/api/mcp/tools').expect(200);
    expect(tools.body).toMatchObject({ count: 10, server_running: false, source: 'catalogue' });
    expect(tools.body.tools).toEqual(MCP_TOOL_CATALOGUE);
    await get('/api/mcp/health').expect(200, { status: 'healthy', service: 'mcp' });
    await t.http.get('/api/mcp/status').expect(401);
  });

  it('saves host, port and transport for the next start, and says so; refuses bad values', async () => {
    const saved = await post('/api/mcp/config', { host: '127.0.0.1', port: mcpPort, transport: 'all' }).expect(200);
    expect(saved.body).toEqual({ success: true, message: expect.stringContaining('next start') });
    const config = await get('/api/mcp/config').expect(200);
    expect(config.body).toMatchObject({
      host: '127.0.0.1',
      port: mcpPort,
      transport: 'all',
      model_choice: expect.any(String),
      use_hybrid_search: false,
      use_reranking: false,
      use_contextual_embeddings: false,
      use_agentic_rag: true,
      active: { host: '127.0.0.1', port: 9, transport: 'all' },
      note: expect.stringContaining('next start'),
    });
    await post('/api/mcp/config', { transport: 'websocket' }).expect(400);
    await post('/api/mcp/config', { port: 70000 }).expect(400);
    await post('/api/mcp/config', { host: 'bad host' }).expect(400);
  });

  it('starts the container (stopped → running): status, uptime from its start, health probed', async () => {
    const started = await post('/api/mcp/start').expect(200);
    const id = engine.container('knowledge-mcp').Id;
    expect(started.body).toEqual({ success: true, message: 'MCP server started', status: 'running', container_id: id });
    expect(engine.startCalls('knowledge-mcp')).toBe(1);
    // The process the container runs: the real MCP server, its output the container's log.
    server = await startMcpServer(
      { PORT: String(mcpPort), KNOWLEDGE_API_URL: apiUrl, KNOWLEDGE_API_KEY: KEY, KNOWLEDGE_MCP_API_KEY: MCP_KEY },
      (stream, line) => engine.appendLog('knowledge-mcp', { stream, text: line }),
    );
    const status = await get('/api/mcp/status').expect(200);
    expect(status.body).toMatchObject({ status: 'running', container_id: id, container_name: 'knowledge-mcp', start_time: engine.container('knowledge-mcp').State.StartedAt, health: { status: 'healthy', port: mcpPort, transport: 'all' } });
    expect(status.body.uptime).toBeGreaterThanOrEqual(0);
    const again = await post('/api/mcp/start').expect(200);
    expect(again.body).toMatchObject({ success: true, status: 'running', message: expect.stringContaining('already') });
    expect((await get('/api/mcp/config')).body.active).toEqual({ host: '127.0.0.1', port: mcpPort, transport: 'all' });
  });

  it('lists the tools from the running server over MCP: the same as its catalogue and as the SDK client sees them', async () => {
    const tools = await get('/api/mcp/tools').expect(200);
    expect(tools.body).toMatchObject({ count: 10, server_running: true, source: 'mcp_server' });
    expect(tools.body.tools).toEqual(MCP_TOOL_CATALOGUE);
    const auth = { Authorization: `Bearer ${MCP_KEY}` };
    const streamable = new Client({ name: 'e2e', version: '1' });
    await streamable.connect(new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`), { requestInit: { headers: auth } }));
    const sse = new Client({ name: 'e2e-sse', version: '1' });
    await sse.connect(
      new SSEClientTransport(new URL(`${server!.url}/sse`), {
        requestInit: { headers: auth },
        eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...auth } }) },
      }),
    );
    try {
      for (const client of [streamable, sse]) {
        const listed = await client.listTools();
        expect(listed.tools.map((x) => x.name)).toEqual(tools.body.tools.map((x: { name: string }) => x.name));
        const rag = (await client.callTool({ name: 'perform_rag_query', arguments: { query: 'heliograph mirrors' } })) as ToolResult;
        expect(rag.structuredContent.results[0].url).toBe(`${site.origin}/`);
        const code = (await client.callTool({ name: 'search_code_examples', arguments: { query: 'exponential backoff', language: 'python' } })) as ToolResult;
        expect(code.structuredContent.results[0].content).toContain('def fetch_with_backoff');
      }
    } finally {
      await streamable.close();
      await sse.close();
    }
    const anonymous = new Client({ name: 'anonymous', version: '1' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`)))).rejects.toThrow(/401|Unauthorized|KNOWLEDGE_MCP_API_KEY/);
  });

  it('follows the container\'s log: entries with the engine\'s timestamps and levels, over REST and /logs', async () => {
    // The server's start-up lines (pino JSON) say it read the transport from knowledge-api's configuration.
    const boot = await eventually(
      () => get('/api/mcp/logs?limit=1000').then((r) => r.body.logs as Array<{ timestamp: string; level: string; message: string }>),
      (logs) => logs.some((l) => l.message.includes('transports: all (from knowledge-api)')),
      'start-up log line',
    );
    expect(boot.every((l) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/.test(l.timestamp))).toBe(true);
    expect(boot.find((l) => l.message.includes('transports: all'))?.level).toBe('info');

    socket = io(`${apiUrl}/logs`, { transports: ['websocket'], forceNew: true, auth: { apiKey: KEY } });
    await new Promise<void>((resolve, reject) => {
      socket!.once('connect', resolve);
      socket!.once('connect_error', reject);
    });
    const streamed = new Promise<{ level: string; message: string }>((resolve) => socket!.on('log_entry', (e: { level: string; message: string }) => e.message.includes('disk almost full') && resolve(e)));
    const ts = engine.appendLog('knowledge-mcp', { stream: 'stderr', text: 'WARNING disk almost full' });
    expect(await streamed).toMatchObject({ level: 'warning', message: 'WARNING disk almost full' });
    const logs = await get('/api/mcp/logs?limit=1').expect(200);
    expect(logs.body.logs).toEqual([{ timestamp: ts, level: 'warning', message: 'WARNING disk almost full' }]);
    expect(engine.logFollowers('knowledge-mcp')).toBe(1);
    await get('/api/mcp/logs?limit=0').expect(400);
  });

  it('clears the log: cleared lines are not read again, new ones are', async () => {
    // The server goes on logging meanwhile (a request it answered, say): what was there before the clear must not come back.
    const before = (messages: string[]) => messages.filter((m) => m.includes('disk almost full') || m.includes('transports: all'));
    await t.http.delete('/api/mcp/logs').set('x-api-key', KEY).expect(200, { success: true, message: 'Logs cleared' });
    expect(before(((await get('/api/mcp/logs?limit=1000')).body.logs as Array<{ message: string }>).map((l) => l.message))).toEqual([]);
    engine.appendLog('knowledge-mcp', 'after the clear');
    const logs = await eventually(
      () => get('/api/mcp/logs?limit=1000').then((r) => (r.body.logs as Array<{ message: string }>).map((l) => l.message)),
      (messages) => messages.includes('after the clear'),
      'a line after the clear',
    );
    expect(before(logs)).toEqual([]);
  });

  it('stops the container (running → stopped); its log stream ends', async () => {
    const stopped = await post('/api/mcp/stop').expect(200);
    expect(stopped.body).toEqual({ success: true, message: 'MCP server stopped', status: 'stopped' });
    await server!.stop();
    server = undefined;
    expect(engine.stopCalls('knowledge-mcp')).toHaveLength(1);
    expect((await get('/api/mcp/status')).body).toMatchObject({ status: 'stopped', uptime: null, start_time: null });
    expect((await post('/api/mcp/stop')).body).toMatchObject({ success: true, status: 'stopped', message: expect.stringContaining('already') });
    await eventually(async () => engine.logFollowers('knowledge-mcp'), (n) => n === 0, 'log stream ended');
    expect((await get('/api/mcp/tools')).body).toMatchObject({ source: 'catalogue', server_running: false });
  });

  it('reports not_found for a missing container, and docker_unavailable without an engine — never 5xx', async () => {
    engine.removeContainer('knowledge-mcp');
    expect((await get('/api/mcp/status').expect(200)).body).toMatchObject({ status: 'not_found', container_id: null, message: expect.stringContaining("'knowledge-mcp' does not exist") });
    expect((await post('/api/mcp/start').expect(200)).body).toMatchObject({ success: false, status: 'not_found' });

    await engine.close();
    const status = await get('/api/mcp/status').expect(200);
    expect(status.body).toMatchObject({ status: 'docker_unavailable', container_id: null, uptime: null, health: { status: 'docker_unavailable' }, message: expect.stringContaining('Docker is not available') });
    const start = await post('/api/mcp/start').expect(200);
    expect(start.body).toEqual({ success: false, status: 'docker_unavailable', container_id: null, message: expect.stringContaining('Docker is not available') });
    expect((await post('/api/mcp/stop').expect(200)).body).toMatchObject({ success: false, status: 'docker_unavailable' });
    await t.http.delete('/api/mcp/logs').set('x-api-key', KEY).expect(200);
    expect((await get('/api/mcp/logs').expect(200)).body).toEqual({ logs: [] });
    expect((await get('/api/mcp/tools').expect(200)).body).toMatchObject({ source: 'catalogue', count: 10, server_running: false });
    // the control API says it cannot do its job, still with 200
    expect((await get('/api/mcp/health').expect(200)).body).toEqual({ status: 'unhealthy', service: 'mcp', message: expect.stringContaining('Docker is not available') });
  });
});
