// Malformed requests on the gateway's raw listeners (its take-over of the HTTP server's `request` and
// `upgrade` events, outside Nest's error handling), for a routed service and for the gateway's own
// routes: each is answered without a 500 and the process keeps serving.
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServiceApp } from '@platform/platform';
import { freePort, malformedRequests, sendRaw } from '@platform/testing';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayService } from '../service';

describe('gateway raw listeners under malformed requests', () => {
  let upstream: Server;
  let app: NestExpressApplication;
  let port: number;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => res.end(`auth-api ${req.url}`));
    upstream.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const dead = `http://127.0.0.1:${await freePort()}`;
    ({ app } = await createServiceApp(gatewayService, {
      logger: false,
      env: {
        NODE_ENV: 'test',
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

  const healthy = async () => (await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).status;

  it.each([
    ['a routed service', '/auth/api/v1/auth/me'],
    ['a service that is down (502 is its answer)', '/email/v1/track'],
    ["the gateway's own routes", '/services'],
  ])('answers every malformed request for %s without a 500, and keeps serving', async (_what, path) => {
    for (const { name, raw } of malformedRequests(path)) {
      const answer = await sendRaw(port, raw);
      expect({ name, serverError: answer.status >= 500 && answer.status !== 502 }).toEqual({ name, serverError: false });
      expect({ name, healthz: await healthy() }).toEqual({ name, healthz: 200 });
    }
    const metrics = await sendRaw(port, 'GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 5_000);
    expect(metrics.text).not.toMatch(/http_listener_faults_total\{[^}]*\} [1-9]/);
  });
});
