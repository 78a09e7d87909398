// knowledge-api behind the built gateway (`node tools/build.mjs` first): REST and the Socket.IO
// progress stream through the `/knowledge` prefix (the gateway strips it and upgrades the WebSocket).
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createTestApp, freePort, waitHealthy, type TestApp } from '@platform/testing';
import { io, type Socket } from 'socket.io-client';
import { page, startSite, type TestSite } from '../test/test-site';
import type { KnowledgeApiConfig } from './config';
import type { ProgressPayload } from './progress/progress-payload';
import { knowledgeApiService } from './service';

const ROOT = path.resolve(__dirname, '../../..');

describe('knowledge-api through the gateway (e2e)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let gateway: ChildProcess;
  let gw: string;
  let site: TestSite;
  let socket: Socket | undefined;

  beforeAll(async () => {
    t = await createTestApp(knowledgeApiService, { CRAWL_ALLOW_PRIVATE: 'true', CRAWL_HOST_DELAY_MS: '0' });
    await t.app.listen(0, '127.0.0.1');
    const upstream = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', PORT: String(port), GATEWAY_UPSTREAM_KNOWLEDGE_API: upstream };
    for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'AMQP_URL', 'REDIS_URL']) delete env[name];
    gateway = spawn(process.execPath, [path.join(ROOT, 'dist/apps/gateway/main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    gateway.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    gateway.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    gw = `http://127.0.0.1:${port}`;
    await waitHealthy('gateway', gw, gateway, () => output, 60_000);
    site = await startSite({ '/': page('Gateway page', 'gatewayword', ['/two']), '/two': page('Two', 'secondword') });
  }, 90_000);

  afterAll(async () => {
    socket?.close();
    gateway?.kill('SIGTERM');
    await t?.close();
    await site?.close();
  });

  it('answers REST and its docs under /knowledge', async () => {
    const res = await fetch(`${gw}/knowledge/api/rag/sources`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, sources: [], total_count: 0 });
    expect((await fetch(`${gw}/knowledge/docs`)).status).toBe(200);
    expect((await fetch(`${gw}/knowledge/redoc`)).status).toBe(200);
  });

  it('streams crawl progress over Socket.IO through the gateway', async () => {
    const res = await fetch(`${gw}/knowledge/api/knowledge-items/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.origin}/`, knowledge_type: 'technical', max_depth: 2 }),
    });
    expect(res.status).toBe(200);
    const { progress_id } = (await res.json()) as { progress_id: string };
    socket = io(`${gw}/crawl`, { path: '/knowledge/socket.io', transports: ['websocket'], forceNew: true });
    const done = await new Promise<ProgressPayload>((resolve, reject) => {
      socket!.on('connect_error', reject);
      socket!.on('connect', () => socket!.emit('subscribe', { progress_id }));
      socket!.on('progress_complete', resolve);
      socket!.on('progress_error', (p: ProgressPayload) => reject(new Error(p.error)));
    });
    expect(done).toMatchObject({ progressId: progress_id, status: 'completed', percentage: 100 });
    const found = await fetch(`${gw}/knowledge/api/rag/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'secondword' }),
    });
    expect(((await found.json()) as { total_results: number }).total_results).toBe(1);
  });
});
