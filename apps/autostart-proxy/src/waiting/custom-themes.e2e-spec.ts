// Custom themes (AUTOSTART_THEMES_DIR) in a real browser with JavaScript off: a theme written in
// Sablier's template syntax shows each instance's name, status and replicas, and the page's meta
// refresh alone brings the user to the started service. A bad theme stops the start.
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, createTestApp, startFakeDockerEngine, type FakeDockerEngine, type TestApp } from '@platform/testing';
import { startUpstream, type TestUpstream } from '../../test/upstream';
import type { AutostartProxyConfig } from '../config';
import { autostartProxyService } from '../service';

const UI_TIMEOUT_MS = 30_000;

const CORPORATE = `<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="{{ .RefreshFrequency }}"><title>{{ .DisplayName }}</title></head>
<body><h1 id="title">{{ .DisplayName }}</h1>
{{- if .ShowDetails }}
<table id="instances">{{ range $i, $instance := .InstanceStates }}<tr class="instance"><td class="name">{{ $instance.Name }}</td><td class="status">{{ $instance.Status }}</td><td class="replicas">{{ $instance.CurrentReplicas }}/{{ $instance.DesiredReplicas }}</td></tr>{{ end }}</table>
{{- end }}
<p id="session">{{ .SessionDuration }}</p></body></html>`;

describe('custom themes are checked when the proxy starts', () => {
  it('refuses a theme with an unknown field or an unclosed block, naming the file and line', async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'autostart-themes-bad-'));
    try {
      fs.writeFileSync(join(dir, 'good.html'), CORPORATE);
      fs.writeFileSync(join(dir, 'typo.html'), '<p>\n{{ .DisplayNme }}</p>');
      fs.writeFileSync(join(dir, 'open.html'), '{{ if .ShowDetails }}');
      fs.writeFileSync(join(dir, 'ghost.html'), '<p></p>');
      await expect(createTestApp(autostartProxyService, { AUTOSTART_THEMES_DIR: dir })).rejects.toThrow(
        /ghost\.html: ghost is a built-in theme[\s\S]*open\.html: unclosed block[\s\S]*typo\.html: line 2: no field DisplayNme/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('custom themes and the waiting page without JavaScript (browser)', () => {
  if (!chromiumAvailable('autostart-proxy custom theme browser test')) return;

  let engine: FakeDockerEngine;
  const upstreams: TestUpstream[] = [];
  let proxy: TestApp<AutostartProxyConfig>;
  let browser: Browser;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    const names = ['site', 'portal', 'plain'];
    engine = await startFakeDockerEngine({ containers: names.map((name) => ({ name, health: { becomes: 'healthy' as const, afterMs: 1500 } })) });
    const urls: Record<string, string> = {};
    for (const name of names) {
      const u = await startUpstream(name, () => engine.container(name).State.Running && engine.container(name).State.Health?.Status === 'healthy');
      upstreams.push(u);
      urls[name] = u.url;
    }
    dir = fs.mkdtempSync(join(tmpdir(), 'autostart-themes-'));
    fs.mkdirSync(join(dir, 'themes'));
    fs.writeFileSync(join(dir, 'themes', 'corporate.html'), CORPORATE);
    fs.writeFileSync(
      join(dir, 'services.yaml'),
      `services:
  - { name: site, hosts: [site.test], mode: dynamic, upstream: '${urls.site}', provider: docker, target: site, healthCheck: /health }
  - { name: portal, hosts: [portal.test], mode: dynamic, theme: corporate, displayName: The Portal, upstream: '${urls.portal}', provider: docker, target: portal, healthCheck: /health }
  - { name: plain, hosts: [plain.test], mode: dynamic, theme: ghost, upstream: '${urls.plain}', provider: docker, target: plain, healthCheck: /health }
`,
    );
    proxy = await createTestApp(autostartProxyService, {
      AUTOSTART_CONFIG: join(dir, 'services.yaml'),
      AUTOSTART_THEMES_DIR: join(dir, 'themes'),
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
    for (const u of upstreams) await u.close();
    await engine?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const withPage = async (headers: Record<string, string>, run: (ctx: BrowserContext) => Promise<void>) => {
    const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders: headers });
    try {
      await run(context);
    } finally {
      await context.close();
    }
  };

  it("Sablier's dynamic strategy in a custom theme: instance details, then ready, by meta refresh alone", async () => {
    await withPage({}, async (context) => {
      const page = await context.newPage();
      const res = await page.goto(`${base}/api/strategies/dynamic?names=site&theme=corporate&refresh_frequency=1s&display_name=My%20Site&session_duration=2m`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['x-sablier-session-status']).toBe('not-ready');
      // The first answer as it arrived (the page may already have reloaded on a slow machine).
      const first = await res!.text();
      expect(first).toContain('<td class="name">site</td><td class="status">not-ready</td><td class="replicas">0/1</td>');
      expect(first).toContain('<meta http-equiv="refresh" content="1">');
      expect(await page.locator('#title').textContent()).toBe('My Site');
      expect(await page.locator('.instance .name').textContent()).toBe('site');
      expect(await page.locator('#session').textContent()).toBe('2m0s');
      await page.locator('.instance .status', { hasText: /^ready$/ }).waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.locator('.instance .replicas').textContent()).toBe('1/1');
    });
  });

  it('a routed request in a custom theme: the page reloads itself into the service, JavaScript off', async () => {
    await withPage({ 'x-autostart-target': 'portal.test' }, async (context) => {
      const page = await context.newPage();
      const res = await page.goto(base);
      expect(res?.status()).toBe(200);
      expect(await page.locator('#title').textContent()).toBe('The Portal');
      expect(await page.locator('.instance .name').textContent()).toBe('portal');
      await page.locator('#app').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.locator('#app').textContent()).toBe('hello from portal');
    });
  });

  it('a built-in theme also works without JavaScript (its noscript meta refresh)', async () => {
    await withPage({ 'x-autostart-target': 'plain.test' }, async (context) => {
      const page = await context.newPage();
      await page.goto(base);
      expect(await page.locator('body').getAttribute('data-theme')).toBe('ghost');
      await page.locator('#app').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(engine.startCalls('plain')).toBe(1);
    });
  });
});
