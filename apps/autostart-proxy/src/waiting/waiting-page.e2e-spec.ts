// The waiting page in a real browser: Debian's Chromium driven by playwright-core opens a stopped
// dynamic service through the proxy, sees the themed page (name, estimate), and lands on the
// service itself once it is healthy, without anyone touching the page.
//
// Needs /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it). Without it the file is
// skipped with one line, except under CI=true or REQUIRE_SERVICES=1, where a missing browser fails.
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, createTestApp, startFakeDockerEngine, type FakeDockerEngine, type TestApp } from '@platform/testing';
import { startUpstream, type TestUpstream } from '../../test/upstream';
import type { AutostartProxyConfig } from '../config';
import { autostartProxyService } from '../service';

const UI_TIMEOUT_MS = 30_000;

describe('autostart-proxy waiting page (browser)', () => {
  if (!chromiumAvailable('autostart-proxy waiting page browser test')) return;

  let engine: FakeDockerEngine;
  let upstream: TestUpstream;
  let proxy: TestApp<AutostartProxyConfig>;
  let browser: Browser;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    engine = await startFakeDockerEngine({ containers: [{ name: 'site', health: { becomes: 'healthy', afterMs: 2500 } }] });
    upstream = await startUpstream('site', () => {
      const c = engine.container('site');
      return c.State.Running && c.State.Health?.Status === 'healthy';
    });
    dir = fs.mkdtempSync(join(tmpdir(), 'autostart-browser-'));
    const config = join(dir, 'services.yaml');
    fs.writeFileSync(
      config,
      `services:\n  - { name: site, hosts: [site.test], mode: dynamic, theme: synthwave, upstream: '${upstream.url}', provider: docker, target: site, healthCheck: /health, estimatedTime: 3 }\n`,
    );
    proxy = await createTestApp(autostartProxyService, {
      AUTOSTART_CONFIG: config,
      DOCKER_HOST: engine.dockerHost,
      AUTOSTART_HEALTH_POLL_MS: '100',
      AUTOSTART_REFRESH_SECONDS: '1',
    });
    await proxy.app.listen(0, '127.0.0.1');
    base = await proxy.app.getUrl();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await upstream?.close();
    await engine?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders the themed page, then reloads into the started service by itself', async () => {
    const context = await browser.newContext({ extraHTTPHeaders: { 'x-autostart-target': 'site.test' } });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
    });
    try {
      const first = await page.goto(base, { waitUntil: 'domcontentloaded' });
      expect(first?.status()).toBe(200);
      // helmet's headers, with a CSP that allows the page's own inline script and style by hash only.
      const headers = first?.headers() ?? {};
      expect(headers['content-security-policy']).toMatch(/script-src 'sha256-[^']+'/);
      expect(headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(headers['referrer-policy']).toBe('no-referrer');
      expect(await page.locator('#service').textContent()).toBe('site');
      expect(await page.locator('#estimate').textContent()).toBe('3');
      expect(await page.locator('body').getAttribute('data-theme')).toBe('synthwave');

      await page.locator('#app').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.locator('#app').textContent()).toBe('hello from site');
      expect(engine.startCalls('site')).toBe(1);
      // Everything came from the proxy itself: no CDN, no font or script from elsewhere.
      expect(requested.every((url) => url.startsWith(base))).toBe(true);
      expect(requested.some((url) => url.includes('/health/site.test'))).toBe(true);
      expect(refused).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
