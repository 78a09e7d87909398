// Swagger UI through the gateway, in a real browser: auth-api behind a gateway (both in this process,
// on free ports), its docs opened at <gateway>/auth/api/docs in Debian's Chromium driven by
// playwright-core, authorized with a token from the login API, and "Try it out" → "Execute" on the
// authenticated GET /api/v1/auth/me: the UI must call <gateway>/auth/api/v1/auth/me and show 200.
//
// Needs /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it). Without it the file is
// skipped with one line, except under CI=true or REQUIRE_SERVICES=1, where a missing browser fails.
import { chromium, type Browser } from 'playwright-core';
import { startService, type RunningService } from '@platform/platform';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, createTestApp, type TestApp } from '@platform/testing';
import { authApiService } from '../../apps/auth-api/src/service';
import { gatewayService } from '../../apps/gateway/src/service';

const ADMIN = { email: 'docs-admin@example.com', password: 'docs-admin-password-1' };
const UI_TIMEOUT_MS = 30_000;

describe('Swagger UI through the gateway (browser)', () => {
  if (!chromiumAvailable('Swagger UI browser test')) return;

  let auth: TestApp;
  let gateway: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    auth = await createTestApp(authApiService, { AUTH_ADMIN_EMAIL: ADMIN.email, AUTH_ADMIN_PASSWORD: ADMIN.password });
    await auth.app.listen(0, '127.0.0.1');
    const { port } = auth.app.getHttpServer().address() as { port: number };
    gateway = await startService(gatewayService, {
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', GATEWAY_UPSTREAM_AUTH_API: `http://127.0.0.1:${port}` },
      port: 0,
      host: '127.0.0.1',
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await auth?.close();
  });

  it('authorizes with a token and runs "Try it out" on GET /api/v1/auth/me through the gateway: 200', async () => {
    const login = await fetch(`${gateway.url}/auth/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: ADMIN.email, password: ADMIN.password }).toString(),
    });
    expect(login.status).toBe(200);
    const { access_token: token } = (await login.json()) as { access_token: string };

    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    const apiCalls: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/api/v1/')) apiCalls.push(req.url());
    });
    await page.goto(`${gateway.url}/auth/api/docs`);

    await page.locator('.auth-wrapper .btn.authorize').click();
    await page.locator('.modal-ux input').first().fill(token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux .btn-done').click();

    const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/api/v1/auth/me"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();

    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await expect(status.textContent()).resolves.toMatch(/^\s*200/);
    await expect(operation.locator('.request-url pre').textContent()).resolves.toBe(`${gateway.url}/auth/api/v1/auth/me`);
    await expect(operation.locator('.live-responses-table tbody .response-col_description pre').first().textContent()).resolves.toContain(ADMIN.email);
    expect(apiCalls).toEqual([`${gateway.url}/auth/api/v1/auth/me`]);
  }, 90_000);
});
