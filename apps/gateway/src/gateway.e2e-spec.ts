import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServiceApp } from '@platform/platform';
import { SERVICES_BEHIND_GATEWAY } from '@platform/registry';
import { garbageCollector } from '@platform/testing';
import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { GatewayProxy } from './proxy/gateway-proxy';
import { gatewayService } from './service';

/** A fake service: echoes what it received, with a few special paths. */
interface Upstream {
  server: http.Server;
  url: string;
  /** bytes of the current /upload body received so far */
  uploadReceived: number;
  uploadHash: string | undefined;
  received: { method: string; url: string; headers: IncomingHttpHeaders }[];
  /** URLs of requests whose connection closed before the upstream finished its response */
  closedEarly: string[];
  /** resolves the pending /stream response (see below) */
  releaseStream: () => void;
  /** the socket of an upgrade to /slow-upgrade, not answered yet */
  pendingUpgrade: Socket | undefined;
}

async function startUpstream(name: string): Promise<Upstream> {
  const upstream: Upstream = {
    server: undefined as never,
    url: '',
    uploadReceived: 0,
    uploadHash: undefined,
    received: [],
    closedEarly: [],
    releaseStream: () => undefined,
    pendingUpgrade: undefined,
  };
  const server = http.createServer((req, res) => {
    upstream.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.on('close', () => {
      if (!res.writableFinished) upstream.closedEarly.push(req.url ?? '');
    });
    if (req.url === '/stream') {
      // A long response: the first chunk now, the rest when the test releases it.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first;');
      upstream.releaseStream = () => res.end('last');
      return;
    }
    if (req.url === '/too-large') {
      // Refuses an upload without reading it (as a size limit or an auth check does).
      res.writeHead(413, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'too large' }));
      return;
    }
    if (req.url === '/hop-by-hop') {
      res.writeHead(200, { connection: 'x-hop-secret', 'x-hop-secret': '1', 'keep-alive': 'timeout=5', 'x-kept': 'yes' });
      res.end('ok');
      return;
    }
    const status = /^\/status\/(\d{3})/.exec(req.url ?? '');
    if (status) {
      res.writeHead(Number(status[1]), { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] });
      res.end(Number(status[1]) === 204 ? undefined : `status ${status[1]} from ${name}`);
      return;
    }
    if (req.url === '/hang') return; // never answers
    if (req.url === '/upload') {
      upstream.uploadReceived = 0;
      const hash = createHash('sha256');
      req.on('data', (chunk: Buffer) => {
        upstream.uploadReceived += chunk.length;
        hash.update(chunk);
      });
      req.on('end', () => {
        upstream.uploadHash = hash.digest('hex');
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ bytes: upstream.uploadReceived, sha256: upstream.uploadHash }));
      });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': name });
      res.end(
        JSON.stringify({ service: name, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
  });
  // A raw upgrade echo: answers 101 and sends back every byte it receives.
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    upstream.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (req.url === '/slow-upgrade') {
      upstream.pendingUpgrade = socket; // answered (or not) by the test
      return;
    }
    if (req.url === '/refuse') {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 7\r\nconnection: close\r\n\r\nrefused');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nx-upstream: ${name}\r\n\r\n`);
    socket.on('data', (data) => socket.write(data));
    socket.on('end', () => socket.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  upstream.server = server;
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

async function freePort(): Promise<number> {
  const s = http.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Polls `condition` until it holds (a bounded wait for something another socket does). */
async function eventually(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(condition()).toBe(true);
}

function request(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('gateway (e2e, fake upstreams)', () => {
  let auth: Upstream;
  let email: Upstream;
  let app: NestExpressApplication;
  let gw: string;
  let deadPort: number;

  /** A gateway in front of the fake upstreams (the others dead), with `timeoutMs` as GATEWAY_TIMEOUT_MS. */
  const startGateway = async (timeoutMs: number) => {
    const dead = `http://127.0.0.1:${deadPort}`;
    const { app } = await createServiceApp(gatewayService, {
      logger: false,
      env: {
        NODE_ENV: 'test',
        GATEWAY_UPSTREAM_AUTH_API: auth.url,
        GATEWAY_UPSTREAM_EMAIL_API: email.url,
        GATEWAY_UPSTREAM_AUTOMATION_API: dead,
        GATEWAY_UPSTREAM_KNOWLEDGE_API: dead,
        GATEWAY_UPSTREAM_CONVERSATION_API: dead,
        GATEWAY_UPSTREAM_TRANSCRIBE_API: dead,
        GATEWAY_UPSTREAM_AUTOSTART_PROXY: dead,
        GATEWAY_UPSTREAM_LOGISTICS_HOOKS: dead,
        GATEWAY_TIMEOUT_MS: String(timeoutMs),
      },
    });
    await app.listen(0, '127.0.0.1');
    return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
  };

  beforeAll(async () => {
    auth = await startUpstream('auth-api');
    email = await startUpstream('email-api');
    deadPort = await freePort();
    ({ app, url: gw } = await startGateway(500));
  });

  afterAll(async () => {
    await app?.close();
    for (const u of [auth, email]) {
      if (!u) continue;
      u.pendingUpgrade?.destroy(); // upgraded sockets are not the server's to close
      const closed = new Promise((r) => u.server.close(r));
      u.server.closeAllConnections();
      await closed;
    }
  });

  it('strips the prefix and passes method, query, headers and body through', async () => {
    const res = await request(
      gw,
      'PATCH',
      '/auth/api/v1/auth/me?x=1&y=two',
      { 'content-type': 'application/json', authorization: 'Bearer abc', 'x-custom': 'yes', host: 'gw.example.com' },
      '{"name":"Ann"}',
    );
    expect(res.status).toBe(200);
    expect(res.headers['x-upstream']).toBe('auth-api');
    const echo = JSON.parse(res.body);
    expect(echo).toMatchObject({ service: 'auth-api', method: 'PATCH', url: '/api/v1/auth/me?x=1&y=two', body: '{"name":"Ann"}' });
    expect(echo.headers).toMatchObject({
      authorization: 'Bearer abc',
      'x-custom': 'yes',
      'content-type': 'application/json',
      host: 'gw.example.com',
      'x-forwarded-host': 'gw.example.com',
      'x-forwarded-proto': 'http',
      'x-forwarded-prefix': '/auth',
      'x-forwarded-for': '127.0.0.1',
    });
  });

  it('routes each prefix to its own upstream', async () => {
    const res = await request(gw, 'GET', '/email/api/v1/contacts');
    expect(JSON.parse(res.body)).toMatchObject({ service: 'email-api', url: '/api/v1/contacts' });
  });

  it('removes hop-by-hop headers on the way up', async () => {
    const res = await request(gw, 'GET', '/auth/x', { 'x-drop-me': '1', connection: 'x-drop-me', 'proxy-authorization': 'Basic Zm9v' });
    const echo = JSON.parse(res.body);
    expect(echo.headers['x-drop-me']).toBeUndefined();
    expect(echo.headers['proxy-authorization']).toBeUndefined();
  });

  it.each([201, 204, 301, 404, 418, 500, 503])('passes status %i and response headers through unchanged', async (status) => {
    const res = await request(gw, 'GET', `/auth/status/${status}`);
    expect(res.status).toBe(status);
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.body).toBe(status === 204 ? '' : `status ${status} from auth-api`);
  });

  it('adds X-Request-Id when absent and sends the same id up and back', async () => {
    const res = await request(gw, 'GET', '/auth/whoami');
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(res.body).headers['x-request-id']).toBe(id);
  });

  it("preserves the client's X-Request-Id", async () => {
    const res = await request(gw, 'GET', '/auth/whoami', { 'x-request-id': 'client-id-42' });
    expect(res.headers['x-request-id']).toBe('client-id-42');
    expect(JSON.parse(res.body).headers['x-request-id']).toBe('client-id-42');
  });

  it.each([
    ['spaces', 'not a safe id'],
    ['an oversized one', 'x'.repeat(129)],
  ])("replaces a client X-Request-Id the services would refuse (%s), and uses the new one everywhere", async (_case, id) => {
    const res = await request(gw, 'GET', '/auth/whoami', { 'x-request-id': id });
    const sent = res.headers['x-request-id'];
    expect(sent).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(res.body).headers['x-request-id']).toBe(sent);
  });

  it('answers 502 in JSON when the upstream is down', async () => {
    const res = await request(gw, 'POST', '/automation/api/v1/automations', { 'content-type': 'application/json' }, '{}');
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(res.body)).toEqual({
      statusCode: 502,
      error: 'Bad Gateway',
      message: 'automation-api is unavailable',
      service: 'automation-api',
    });
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('answers 502 when the upstream accepts but never answers within GATEWAY_TIMEOUT_MS', async () => {
    const res = await request(gw, 'GET', '/email/hang');
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 502, service: 'email-api', message: 'email-api is unavailable' });
  });

  it('answers 404 in JSON listing the known prefixes for an unknown prefix', async () => {
    const res = await request(gw, 'GET', '/nope/api/v1/x');
    expect(res.status).toBe(404);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    // every registered prefix, in the registry's order
    expect(body.prefixes).toEqual(SERVICES_BEHIND_GATEWAY.map((s) => s.prefix));
    expect(body.message).toContain('/auth');
    expect(auth.received.some((r) => r.url.includes('/nope'))).toBe(false);
  });

  it('streams a 200 MB upload: the upstream receives bytes before the client has finished sending', async () => {
    // Its own gateway, with a timeout no collection reaches: the full collections below stop this
    // process (the gateway's too) for a while on a loaded machine, past the suite's 500 ms.
    const patient = await startGateway(60_000);
    const total = 200 * 1024 * 1024;
    const chunk = randomBytes(64 * 1024);
    const expected = createHash('sha256');
    // Live memory only: garbage the collector has not reached yet (more of it on a busy machine)
    // is not memory the gateway holds. A full collection before the upload, and one halfway.
    const gc = garbageCollector();
    gc();
    const heapBefore = process.memoryUsage();
    let peakGrowth = 0;

    const reply = new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        `${patient.url}/auth/upload`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/octet-stream', 'content-length': String(total) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      void (async () => {
        let sent = 0;
        let seenMidway = false;
        while (sent < total) {
          if (!req.write(chunk)) await once(req, 'drain');
          expected.update(chunk);
          sent += chunk.length;
          if (!seenMidway && sent >= total / 2) {
            // Half the body is out: a streaming gateway has already passed some of it on.
            for (let i = 0; i < 500 && auth.uploadReceived === 0; i++) await new Promise((r) => setTimeout(r, 20));
            seenMidway = auth.uploadReceived > 0;
            expect(seenMidway).toBe(true);
            expect(auth.uploadReceived).toBeLessThan(total);
            // a full collection: only what is held counts (after a minor one, chunks promoted to the old
            // generation and not yet collected counted too, 126 MB once on a loaded CI machine)
            gc();
            const now = process.memoryUsage();
            peakGrowth = Math.max(peakGrowth, now.heapUsed + now.arrayBuffers - heapBefore.heapUsed - heapBefore.arrayBuffers);
          }
        }
        req.end();
      })().catch(reject);
    });

    const res = await reply.finally(() => patient.app.close());
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toEqual({ bytes: total, sha256: expected.digest('hex') });
    // Buffering half the upload would show up as 100 MB or more here.
    expect(peakGrowth).toBeLessThan(50 * 1024 * 1024);
  });

  it('proxies a WebSocket upgrade and relays frames both ways', async () => {
    const req = http.request(`${gw}/auth/socket.io/?EIO=4&transport=websocket`, {
      agent: false,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.end();
    const [res, socket] = (await once(req, 'upgrade')) as [IncomingMessage, Socket, Buffer];
    try {
      expect(res.statusCode).toBe(101);
      expect(res.headers['x-upstream']).toBe('auth-api');
      const seen = auth.received.at(-1);
      expect(seen?.url).toBe('/socket.io/?EIO=4&transport=websocket');
      expect(seen?.headers.upgrade).toBe('websocket');
      expect(seen?.headers['x-forwarded-prefix']).toBe('/auth');
      socket.write('hello through the gateway');
      const [data] = (await once(socket, 'data')) as [Buffer];
      expect(data.toString()).toBe('hello through the gateway');
    } finally {
      socket.destroy();
    }
  });

  it('relays an upstream refusal of an upgrade', async () => {
    const req = http.request(`${gw}/auth/refuse`, { agent: false, headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(403);
    res.resume();
  });

  it('answers 502 to an upgrade when the upstream is down', async () => {
    const req = http.request(`${gw}/knowledge/socket.io/`, { agent: false, headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(502);
    res.resume();
  });

  it('streams a response: the client reads the first chunk while the upstream is still sending', async () => {
    const req = http.request(`${gw}/auth/stream`, { agent: false });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    const [first] = (await once(res, 'data')) as [Buffer];
    expect(first.toString()).toBe('first;');
    auth.releaseStream();
    const rest: Buffer[] = [];
    res.on('data', (c: Buffer) => rest.push(c));
    await once(res, 'end');
    expect(Buffer.concat(rest).toString()).toBe('last');
  });

  it('abandons the upstream request when the client goes away in the middle of the response', async () => {
    const req = http.request(`${gw}/auth/stream`, { agent: false });
    req.on('error', () => undefined);
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    await once(res, 'data');
    const before = auth.closedEarly.filter((u) => u === '/stream').length;
    req.destroy();
    await eventually(() => auth.closedEarly.filter((u) => u === '/stream').length > before);
  });

  it('abandons the upstream request when the client aborts an upload', async () => {
    auth.uploadReceived = 0;
    const req = http.request(`${gw}/auth/upload`, { method: 'POST', agent: false, headers: { 'content-length': String(10 * 1024 * 1024) } });
    req.on('error', () => undefined);
    req.write(randomBytes(64 * 1024));
    await eventually(() => auth.uploadReceived > 0);
    req.destroy();
    await eventually(() => auth.closedEarly.includes('/upload'));
  });

  it('relays an early refusal of an upload whole, without waiting for the rest of the body', async () => {
    const res = await new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        `${gw}/auth/too-large`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/octet-stream', 'content-length': String(500 * 1024 * 1024) } },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => {
            req.destroy(); // the client gives up the rest of the upload once refused
            resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks).toString() });
          });
          r.on('error', reject);
        },
      );
      req.on('error', () => undefined);
      const chunk = randomBytes(64 * 1024);
      const pump = (): void => {
        while (!req.destroyed && req.write(chunk));
        if (!req.destroyed) req.once('drain', pump);
      };
      pump();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: 'too large' });
  });

  it.each(['POST', 'PUT', 'DELETE', 'OPTIONS'])('passes a chunked %s body (no Content-Length) through intact', async (method) => {
    const res = await new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        `${gw}/auth/chunked`,
        { method, agent: false, headers: { 'transfer-encoding': 'chunked', 'content-type': 'text/plain' } },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.write('GET /smuggled HTTP/1.1\r\nhost: x\r\n\r\n');
      req.end('tail');
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ method, url: '/chunked', body: 'GET /smuggled HTTP/1.1\r\nhost: x\r\n\r\ntail' });
    // The pooled upstream connection is still in step: the next request gets its own answer.
    const next = await request(gw, 'GET', '/auth/after-chunked');
    expect(JSON.parse(next.body)).toMatchObject({ url: '/after-chunked', body: '' });
    expect(auth.received.some((r) => r.url === '/smuggled')).toBe(false);
  });

  it('removes hop-by-hop headers on the way back', async () => {
    const res = await request(gw, 'GET', '/auth/hop-by-hop');
    expect(res.status).toBe(200);
    expect(res.headers['x-kept']).toBe('yes');
    expect(res.headers['x-hop-secret']).toBeUndefined();
    expect(res.headers['keep-alive']).toBeUndefined();
  });

  it('closes the upstream connection of an upgrade whose client left before the upstream answered', async () => {
    auth.pendingUpgrade = undefined;
    const req = http.request(`${gw}/auth/slow-upgrade`, { agent: false, headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    req.on('error', () => undefined);
    req.end();
    await eventually(() => auth.pendingUpgrade !== undefined);
    const upstreamSocket = auth.pendingUpgrade!;
    // The upstream end sees the gateway's side end (or fail); read so that the end is noticed.
    const closed = new Promise((resolve) => {
      upstreamSocket.once('end', resolve);
      upstreamSocket.once('close', resolve);
    });
    upstreamSocket.resume();
    req.destroy();
    // Accepting now must not leave a half-open tunnel behind: the gateway closes its side.
    upstreamSocket.on('error', () => undefined);
    upstreamSocket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
    await closed;
    await eventually(() => (app.get(GatewayProxy) as unknown as { engine: { openTunnels: number } }).engine.openTunnels === 0);
  }, 10_000);

  it('adds X-Request-Id to its own answers (service list, 404)', async () => {
    expect((await request(gw, 'GET', '/')).headers['x-request-id']).toBeDefined();
    expect((await request(gw, 'GET', '/nope')).headers['x-request-id']).toBeDefined();
    expect((await request(gw, 'GET', '/nope', { 'x-request-id': 'mine-1' })).headers['x-request-id']).toBe('mine-1');
  });

  it('lists the services with prefix, upstream, docs and reachability at GET /', async () => {
    const res = await request(gw, 'GET', '/');
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body);
    expect(body.docs).toBe('/api/docs');
    expect(body.services).toHaveLength(SERVICES_BEHIND_GATEWAY.length);
    expect(body.services).toContainEqual({
      name: 'auth-api',
      prefix: '/auth',
      upstream: auth.url,
      docs: '/auth/api/docs',
      openapi: '/auth/api/docs-json',
      status: 'up',
    });
    expect(body.services.find((s: { name: string }) => s.name === 'knowledge-api')).toMatchObject({
      upstream: `http://127.0.0.1:${deadPort}`,
      status: 'down',
    });
  });

  it("serves its own docs linking every service's docs, health and metrics", async () => {
    const doc = JSON.parse((await request(gw, 'GET', '/api/docs-json')).body);
    expect(doc.info.title).toBe('Gateway');
    for (const { prefix } of SERVICES_BEHIND_GATEWAY) {
      expect(doc.info.description).toContain(`${prefix}/api/docs`);
    }
    expect((await request(gw, 'GET', '/api/docs')).status).toBe(200);
    expect((await request(gw, 'GET', '/healthz')).status).toBe(200);
    expect((await request(gw, 'GET', '/readyz')).status).toBe(200);
    const metrics = await request(gw, 'GET', '/metrics');
    expect(metrics.body).toMatch(/gateway_proxy_requests_total\{[^}]*upstream="auth-api"[^}]*status="200"[^}]*\} [1-9]/);
    expect(metrics.body).toMatch(/gateway_proxy_requests_total\{[^}]*upstream="automation-api"[^}]*status="502"[^}]*\} [1-9]/);
  });

  it('refuses an invalid upstream URL at start with the variable named', async () => {
    await expect(
      createServiceApp(gatewayService, { logger: false, env: { NODE_ENV: 'test', GATEWAY_UPSTREAM_AUTH_API: 'ftp://x' } }),
    ).rejects.toThrow('GATEWAY_UPSTREAM_AUTH_API');
  });
});
