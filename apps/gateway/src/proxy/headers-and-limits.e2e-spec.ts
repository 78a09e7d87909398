// The gateway's raw listener (its take-over of the HTTP server) under slow clients, and its security
// headers: a client sending its headers byte by byte is cut off by the headers timeout before any
// upstream is contacted, an idle keep-alive connection is closed, the gateway's own pages carry
// helmet's headers, and a proxied answer passes through unchanged (the gateway adds none of them).
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServiceApp } from '@platform/platform';
import { freePort, sendRaw, sendSlowly } from '@platform/testing';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayService } from '../service';

describe('gateway: slow clients and security headers', () => {
  let upstream: Server;
  let upstreamRequests = 0;
  let app: NestExpressApplication;
  let port: number;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      upstreamRequests++;
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'auth-api' });
      res.end(`auth-api ${req.url}`);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const dead = `http://127.0.0.1:${await freePort()}`;
    ({ app } = await createServiceApp(gatewayService, {
      logger: false,
      env: {
        NODE_ENV: 'test',
        HTTP_HEADERS_TIMEOUT_MS: '400',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
        HTTP_TIMEOUT_CHECK_INTERVAL_MS: '50',
        GATEWAY_UPSTREAM_AUTH_API: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        GATEWAY_UPSTREAM_EMAIL_API: dead,
        GATEWAY_UPSTREAM_AUTOMATION_API: dead,
        GATEWAY_UPSTREAM_KNOWLEDGE_API: dead,
        GATEWAY_UPSTREAM_CONVERSATION_API: dead,
        GATEWAY_UPSTREAM_TRANSCRIBE_API: dead,
        GATEWAY_UPSTREAM_AUTOSTART_PROXY: dead,
        GATEWAY_UPSTREAM_LOGISTICS_HOOKS: dead,
      },
    }));
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app?.close();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('headers sent byte by byte to a proxied path: 408 and closed, the upstream never called', async () => {
    const before = upstreamRequests;
    const raw = `GET /auth/api/v1/auth/me HTTP/1.1\r\nHost: localhost\r\n${'X-Slow: '.padEnd(200, 'a')}\r\n\r\n`;
    const answer = await sendSlowly(port, raw, 20);
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(408);
    expect(answer.sent).toBeLessThan(raw.length);
    expect(upstreamRequests).toBe(before);
  });

  it('an idle keep-alive connection after a proxied answer is closed', async () => {
    const answer = await sendSlowly(port, '', 10, { head: 'GET /auth/x HTTP/1.1\r\nHost: localhost\r\n\r\n' });
    expect(answer.status).toBe(200);
    expect(answer.closed).toBe(true);
  });

  it("the gateway's own pages carry helmet's headers; a proxied answer passes through without them", async () => {
    const own = await sendRaw(port, 'GET /api/docs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(own.status).toBe(200);
    expect(own.text).toMatch(/\r\ncontent-security-policy: default-src 'self'/i);
    expect(own.text).toMatch(/\r\nx-content-type-options: nosniff/i);
    expect(own.text).toMatch(/\r\nx-frame-options: SAMEORIGIN/i);

    const proxied = await sendRaw(port, 'GET /auth/anything HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(proxied.status).toBe(200);
    expect(proxied.text).toMatch(/\r\nx-upstream: auth-api/i);
    expect(proxied.text).not.toMatch(/content-security-policy|x-frame-options/i);
  });
});
