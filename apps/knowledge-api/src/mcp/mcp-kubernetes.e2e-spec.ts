// `/api/mcp/*` with the MCP server as a Kubernetes Deployment (scaled 0 ↔ 1) on the fake Kubernetes
// API: start (stopped → starting → running, uptime from knowledge-api's start), its pod's log followed
// with timestamps, stop (running → stopping → stopped, the stream ends), then the API server gone.
import { createTestApp, startFakeKubernetesApi, type FakeKubernetesApi, type TestApp } from '@platform/testing';
import type { KnowledgeApiConfig } from '../config';
import { knowledgeApiService } from '../service';

const KEY = 'knowledge-api-key-0123456789abcdef';

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('MCP control against the fake Kubernetes API (e2e)', () => {
  let k8s: FakeKubernetesApi;
  let t: TestApp<KnowledgeApiConfig>;
  const get = (path: string) => t.http.get(path).set('x-api-key', KEY);
  const post = (path: string) => t.http.post(path).set('x-api-key', KEY).send({});

  beforeAll(async () => {
    k8s = await startFakeKubernetesApi({
      workloads: [{ namespace: 'ai', name: 'knowledge-mcp', replicas: 0, readyAfterMs: 3_000, terminateAfterMs: 300, logs: ['{"level":30,"time":1,"msg":"listening on 3009"}'] }],
    });
    t = await createTestApp(knowledgeApiService, {
      KNOWLEDGE_API_KEY: KEY,
      MCP_CONTAINER_PROVIDER: 'kubernetes',
      KUBECONFIG: k8s.kubeconfigPath,
      MCP_CONTAINER: 'ai/knowledge-mcp',
      MCP_HOST: '127.0.0.1',
      MCP_PORT: '9',
      // The fake answers at once; the deadline is not under test here (a loaded CI machine took over 2 s for the first call).
      MCP_ENGINE_TIMEOUT_MS: '15000',
      MCP_LOG_POLL_MS: '100',
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await k8s?.close();
  });

  it('starts the Deployment: stopped → starting → running, uptime from the start', async () => {
    expect((await get('/api/mcp/status').expect(200)).body).toMatchObject({ status: 'stopped', container_id: null, container_name: 'knowledge-mcp', uptime: null, start_time: null });
    const started = await post('/api/mcp/start').expect(200);
    expect(started.body).toMatchObject({ success: true, status: 'starting', container_id: null });
    expect(k8s.scaleCalls('ai', 'knowledge-mcp').map((c) => c.replicas)).toEqual([1]);
    const running = await eventually(() => get('/api/mcp/status').then((r) => r.body), (b) => b.status === 'running', 'running');
    expect(running).toMatchObject({ container_name: 'knowledge-mcp', start_time: expect.any(String), health: { status: 'healthy', port: 9 } });
    expect(running.uptime).toBeGreaterThanOrEqual(0);
    expect(Date.parse(running.start_time)).toBeLessThanOrEqual(Date.now());
  });

  it('follows the pod\'s log with timestamps', async () => {
    const first = await eventually(() => get('/api/mcp/logs').then((r) => r.body.logs as Array<{ message: string; level: string; timestamp: string }>), (l) => l.length > 0, 'log entries');
    expect(first[0]).toMatchObject({ message: 'listening on 3009', level: 'info' });
    await eventually(async () => k8s.logFollowers('ai', 'knowledge-mcp'), (n) => n === 1, 'log follower');
    const ts = k8s.appendLog('ai', 'knowledge-mcp', 'ERROR upstream refused');
    const logs = await eventually(() => get('/api/mcp/logs').then((r) => r.body.logs as Array<{ message: string }>), (l) => l.length === 2, 'the new line');
    expect(logs[1]).toEqual({ timestamp: ts, level: 'error', message: 'ERROR upstream refused' });
  });

  it('stops the Deployment: running → stopping → stopped, and the log stream ends', async () => {
    const stopped = await post('/api/mcp/stop').expect(200);
    expect(['stopping', 'stopped']).toContain(stopped.body.status);
    expect(stopped.body.success).toBe(true);
    expect(k8s.scaleCalls('ai', 'knowledge-mcp').map((c) => c.replicas)).toEqual([1, 0]);
    expect((await eventually(() => get('/api/mcp/status').then((r) => r.body), (b) => b.status === 'stopped', 'stopped')).uptime).toBeNull();
    await eventually(async () => k8s.logFollowers('ai', 'knowledge-mcp'), (n) => n === 0, 'log stream ended');
  });

  it('answers docker_unavailable once the API server is gone, and start a clear error', async () => {
    await k8s.close();
    expect((await get('/api/mcp/status').expect(200)).body).toMatchObject({ status: 'docker_unavailable', message: expect.stringContaining('Kubernetes API server is not available') });
    expect((await post('/api/mcp/start').expect(200)).body).toMatchObject({ success: false, status: 'docker_unavailable' });
    expect((await get('/api/mcp/tools').expect(200)).body).toMatchObject({ source: 'catalogue', server_running: false });
  });
});
