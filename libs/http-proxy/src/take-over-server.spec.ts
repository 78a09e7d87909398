// The last resort of the raw listeners: whatever the routes or the engine's callbacks throw while a
// request is handled is answered (500, or the connection closed), counted and reported, and the
// server goes on serving. Loopback servers only.
import http, { type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { sendRaw } from '@platform/testing';
import { LISTENER_FAULTS_METRIC } from './listener-faults';
import { ProxyEngine } from './proxy-engine';
import { takeOverServer } from './take-over-server';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function faultCount(registry: Registry, site: string): Promise<number> {
  const metric = await registry.getSingleMetric(LISTENER_FAULTS_METRIC)?.get();
  return metric?.values.find((v) => v.labels.site === site)?.value ?? 0;
}

describe('takeOverServer and ProxyEngine: the last resort of the raw listeners', () => {
  let upstream: Server;
  let server: Server;
  let port: number;
  let engine: ProxyEngine;
  const registry = new Registry();
  const reported: { site: string; message: string }[] = [];
  let failOnComplete = false;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => res.end(`upstream ${req.url}`));
    const upstreamUrl = new URL(`http://127.0.0.1:${await listen(upstream)}`);
    engine = new ProxyEngine({
      timeoutMs: 2_000,
      connectTimeoutMs: 1_000,
      onComplete: () => {
        if (failOnComplete) throw new Error('onComplete failed');
      },
      faults: { registry, onFault: (site, error) => reported.push({ site, message: (error as Error).message }) },
    });
    // The server's own handler (Express in the apps).
    server = http.createServer((_req, res) => res.end('own'));
    takeOverServer(
      server,
      engine,
      {
        request: (req: IncomingMessage, res, next) => {
          if (req.url === '/boom') throw new URIError('URI malformed');
          if (req.url?.startsWith('/proxy/')) engine.forward(req, res, { name: 'up', upstream: upstreamUrl, path: req.url.slice('/proxy'.length) });
          else next(req, res);
        },
        upgrade: (req, socket, head) => {
          if (req.url === '/boom') throw new TypeError('upgrade route failed');
          engine.upgrade(req, socket, head, { name: 'up', upstream: upstreamUrl, path: req.url ?? '/' });
        },
      },
      { name: 'test', drainTimeoutMs: 100 },
    );
    port = await listen(server);
  });

  afterAll(async () => {
    engine.close();
    await close(server);
    await close(upstream);
  });

  const get = (path: string) => sendRaw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);

  it('answers 500 when a request route throws, counts and reports it, and keeps serving', async () => {
    const answer = await get('/boom');
    expect(answer.status).toBe(500);
    expect(answer.text).toContain('"statusCode":500');
    expect(await faultCount(registry, 'request')).toBe(1);
    expect(reported).toContainEqual({ site: 'request', message: 'URI malformed' });
    expect((await get('/own')).text).toMatch(/own$/);
  });

  it('answers 500 on the raw socket when an upgrade route throws, and keeps serving', async () => {
    const answer = await sendRaw(port, 'GET /boom HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    expect(answer.status).toBe(500);
    expect(await faultCount(registry, 'upgrade')).toBe(1);
    expect((await get('/own')).status).toBe(200);
  });

  it('survives a failing outcome callback of a proxied exchange: the client still gets its answer', async () => {
    failOnComplete = true;
    try {
      const answer = await get('/proxy/x');
      expect(answer.status).toBe(200);
      expect(answer.text).toMatch(/upstream \/x$/);
      // the callback runs when the upstream's response ends: wait for the report
      for (let i = 0; i < 50 && (await faultCount(registry, 'proxy')) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await faultCount(registry, 'proxy')).toBe(1);
      expect(reported).toContainEqual({ site: 'proxy', message: 'onComplete failed' });
    } finally {
      failOnComplete = false;
    }
    expect((await get('/proxy/y')).text).toMatch(/upstream \/y$/);
    expect(engine.activeRequests).toBe(0);
  });
});
