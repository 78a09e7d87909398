// The live error dashboard in Chromium: served by the app (CSP, local assets), logging in through a
// real auth-api (its logistics realm), listing the error records, showing a new one as it is reported
// (the /errors socket) and resolving it. Needs /usr/bin/chromium (`apt-get install chromium`).
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, createTestApp, type TestApp } from '@platform/testing';
import { startAuthApi, type RunningAuthApi } from '../../test/auth-api';
import type { LogisticsHooksConfig } from '../config';
import { ErrorReportsService } from '../error-reports/error-reports.service';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';

describe('error dashboard page', () => {
  if (!chromiumAvailable('logistics-hooks dashboard browser test')) return;
  let auth: RunningAuthApi;
  let t: TestApp<LogisticsHooksConfig>;
  let browser: Browser;
  let page: Page;
  let baseUrl: string;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    auth = await startAuthApi();
    const admin = await auth.login(auth.admin.email, auth.admin.password);
    await auth.createUser(admin, { email: 'driver@example.com', password: 'driver-password-1', role: 'driver' });
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, AUTH_JWKS_URL: auth.jwksUrl, AUTH_ISSUER: auth.issuer });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await t.http.post('/api/errors/report').send({ api_key: API_KEY, message: 'CRM push failed', source: 'crm', severity: 'warning' }).expect(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    page.on('console', (m) => m.text().includes('Content Security Policy') && cspViolations.push(m.text()));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await auth?.close();
  });

  it('serves the page with its CSP and local assets', async () => {
    const res = await t.http.get('/dashboard').expect(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).not.toMatch(/https?:\/\//);
    await t.http.get('/dashboard/app.js').expect(200).expect('content-type', /javascript/);
    await t.http.get('/socket.io/socket.io.min.js').expect(200);
  });

  it('refuses a wrong password and a non-admin at login', async () => {
    await page.goto(`${baseUrl}/dashboard`);
    await page.fill('#email', auth.admin.email);
    await page.fill('#password', 'wrong-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:not(:empty)');
    expect(await page.textContent('#login-error')).toContain('Wrong email or password');
    await page.fill('#email', 'driver@example.com');
    await page.fill('#password', 'driver-password-1');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:has-text("administrators")');
  });

  it('logs in, lists the errors, shows a new one live and resolves it', async () => {
    await page.fill('#email', auth.admin.email);
    await page.fill('#password', auth.admin.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#errors tr');
    expect(await page.textContent('#errors')).toContain('CRM push failed');
    await page.waitForSelector('#live.on');

    const message = `Ocean tracking timed out <b>${Date.now()}</b>`;
    const created = await t.http.post('/api/errors/report').send({ api_key: API_KEY, message, source: 'ocean-track', severity: 'critical' }).expect(201);
    const id = created.body.record.id as string;
    const row = `#errors tr[data-id="${id}"]`;
    await page.waitForSelector(row);
    expect(await page.textContent(`${row} .message`)).toBe(message);
    expect(await page.$(`${row} b`)).toBeNull();

    await t.http.post('/api/errors/report').send({ api_key: API_KEY, message }).expect(200);
    await page.waitForSelector(`${row} .occurrences:text-is("2")`);

    await page.selectOption(`${row} select`, 'resolved');
    await page.waitForSelector(`${row}[data-status="resolved"]`);
    expect((await t.app.get(ErrorReportsService).find(id))?.status).toBe('resolved');
    expect(cspViolations).toEqual([]);
  });
});
