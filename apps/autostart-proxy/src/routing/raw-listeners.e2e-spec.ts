// Malformed requests on autostart-proxy's raw listeners (its take-over of the HTTP server's `request`
// and `upgrade` events, outside Nest's error handling): for the proxy's own routes, for a managed
// service that runs and for a host nobody manages. Each is answered without a 500 and the process
// keeps serving; `/health/<malformed percent-encoding>` (which once ended the process) is a 400.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createTestApp, malformedRequests, sendRaw, sendSlowly, startFakeDockerEngine, type FakeDockerEngine, type TestApp } from '@platform/testing';
import { startUpstream, type TestUpstream } from '../../test/upstream';
import type { AutostartProxyConfig } from '../config';
import { autostartProxyService } from '../service';

describe('autostart-proxy raw listeners under malformed requests', () => {
  let engine: FakeDockerEngine;
  let upstream: TestUpstream;
  let dir: string;
  let t: TestApp<AutostartProxyConfig>;
  let port: number;

  beforeAll(async () => {
    engine = await startFakeDockerEngine({ containers: [{ name: 'web', state: 'running' }] });
    upstream = await startUpstream('web', () => engine.container('web').State.Running);
    dir = mkdtempSync(join(tmpdir(), 'autostart-raw-'));
    const config = join(dir, 'services.yaml');
    writeFileSync(
      config,
      `services:\n  - name: web\n    hosts: [web.test]\n    mode: async\n    upstream: ${upstream.url}\n    provider: docker\n    target: web\n    healthCheck: /health\n`,
    );
    t = await createTestApp(autostartProxyService, {
      AUTOSTART_CONFIG: config,
      DOCKER_HOST: engine.dockerHost,
      AUTOSTART_HEALTH_POLL_MS: '50',
      // Small slow-client timeouts, so that the slowloris test below takes half a second.
      HTTP_HEADERS_TIMEOUT_MS: '500',
      HTTP_TIMEOUT_CHECK_INTERVAL_MS: '50',
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    await engine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const healthy = async () => (await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).status;

  it('answers /health/<malformed percent-encoding> with 400, directly and as an upgrade', async () => {
    for (const encoded of ['%ED%A0%80', '%', '%zz', '%E0%80']) {
      const plain = await sendRaw(port, `GET /health/${encoded} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect({ encoded, status: plain.status }).toEqual({ encoded, status: 400 });
      expect(plain.text).toContain('malformed percent-encoding');
      const upgrade = await sendRaw(port, `GET /health/${encoded} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`);
      expect({ encoded, status: upgrade.status }).toEqual({ encoded, status: 400 });
    }
    expect(await healthy()).toBe(200);
  });

  it.each([
    ['the proxy itself', 'localhost', '/health'],
    ['a running managed service', 'web.test', '/anything'],
    ['a managed host, under /health', 'web.test', '/health'],
  ])('answers every malformed request for %s without a 500, and keeps serving', async (_what, host, path) => {
    for (const { name, raw } of malformedRequests(path, host)) {
      const answer = await sendRaw(port, raw);
      expect({ name, serverError: answer.status >= 500 && answer.status !== 502 }).toEqual({ name, serverError: false });
      expect({ name, healthz: await healthy() }).toEqual({ name, healthz: 200 });
    }
    const metrics = await sendRaw(port, 'GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 5_000);
    // No fault reached the last resort: every one of these was answered on purpose.
    expect(metrics.text).not.toMatch(/http_listener_faults_total\{[^}]*\} [1-9]/);
  });

  it('cuts off a client that sends its headers byte by byte (408, closed), for a managed host and for the proxy itself', async () => {
    for (const host of ['web.test', 'localhost']) {
      const raw = `GET /anything HTTP/1.1\r\nHost: ${host}\r\n${'X-Slow: '.padEnd(200, 'a')}\r\n\r\n`;
      const answer = await sendSlowly(port, raw, 20);
      expect({ host, closed: answer.closed, status: answer.status }).toEqual({ host, closed: true, status: 408 });
      expect(answer.sent).toBeLessThan(raw.length);
    }
    expect(await healthy()).toBe(200);
  });
});
