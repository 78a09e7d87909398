// The platform's helmet policy (libs/platform/src/http/security-headers.ts) in a real browser (Debian's Chromium, playwright-core): Swagger UI and
// ReDoc still render, "Try it out" still calls the API, a page with an inline style still posts its
// form, a page with its own inline script runs it under `pageCsp` — and the browser reports no
// Content-Security-Policy violation on any of them. An injected inline script is refused.
// Here rather than in libs/platform: a lib's test importing @platform/testing (which imports the
// platform) would be a circular dependency between the two projects.
import { Controller, Get, Header, Module, Post, Res, type DynamicModule } from '@nestjs/common';
import { PlainErrorFilter } from '@platform/errors';
import { BaseConfig, pageCsp, startService, type RunningService, type ServiceDefinition } from '@platform/platform';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from '@platform/testing';
import type { Response } from 'express';
import { chromium, type Browser, type Page } from 'playwright-core';

const UNSUBSCRIBE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unsubscribe</title><style>body{font-family:sans-serif;color:#222}</style></head>' +
  '<body><h1>Unsubscribe</h1><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button id="go" type="submit">Unsubscribe</button></form></body></html>';

const WAITING =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Starting</title><style>#n{color:#33ff66}</style></head>' +
  '<body><p id="n">waiting</p><button id="retry" onclick="document.getElementById(\'n\').textContent=\'clicked\'">Try again</button>' +
  "<script>document.getElementById('n').textContent='script ran';</script></body></html>";

/** The same page with a script an injected value would add: not in the page's hashes, so refused. */
const INJECTED = WAITING.replace('</body>', "<script>document.title='pwned'</script></body>");

@Controller('pages')
class PagesController {
  @Get('unsubscribe')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return UNSUBSCRIBE;
  }

  @Post('unsubscribe')
  @Header('Content-Type', 'text/html; charset=utf-8')
  done(): string {
    return '<!doctype html><html><head><title>Done</title></head><body><h1 id="done">You are unsubscribed</h1></body></html>';
  }

  @Get('waiting')
  waiting(@Res() res: Response): void {
    res.type('html').setHeader('Content-Security-Policy', pageCsp(WAITING));
    res.send(WAITING);
  }

  @Get('injected')
  injected(@Res() res: Response): void {
    res.type('html').setHeader('Content-Security-Policy', pageCsp(WAITING));
    res.send(INJECTED);
  }

  @Get('ping')
  ping() {
    return { pong: true };
  }
}

@Module({ controllers: [PagesController] })
class PagesModule {}

const definition: ServiceDefinition = {
  name: 'csp-browser-test',
  port: 0,
  config: BaseConfig,
  module: (): DynamicModule => ({ module: PagesModule }),
  swagger: { title: 'CSP test', description: 'test', version: '1', redoc: '/redoc' },
  errorFilter: () => new PlainErrorFilter(),
};

const UI_TIMEOUT_MS = 20_000;

describe('the platform security headers in a browser', () => {
  if (!chromiumAvailable('platform security headers browser test')) return;

  let service: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startService(definition, { env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' }, port: 0, host: '127.0.0.1', logger: false });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  /** A page that records every CSP violation the browser reports (console and securitypolicyviolation). */
  async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    // Evaluated in the page (a string: this file is compiled without the DOM's types).
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => console.error('Refused to load: CSP ' + e.violatedDirective + ' ' + e.blockedURI));",
    });
    return { page, violations };
  }

  it('Swagger UI renders and "Try it out" calls the API, with no CSP violation', async () => {
    const { page, violations } = await watchedPage();
    const res = await page.goto(`${service.url}/api/docs`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/pages/ping"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    await expect(operation.locator('.live-responses-table tbody .response-col_status').first().textContent()).resolves.toMatch(/^\s*200/);
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);

  it('ReDoc renders the document, with no CSP violation but its CDN logo', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${service.url}/redoc`);
    await page.getByText('/pages/ping').first().waitFor();
    // The one refusal is by design: the bundle's footer logo on redocly's CDN (REDOC_CSP keeps the page on its origin).
    expect(violations.filter((v) => !v.includes('https://cdn.redoc.ly/'))).toEqual([]);
    await page.close();
  }, 60_000);

  it('a page with an inline style posts its form to itself', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${service.url}/pages/unsubscribe`);
    expect(await page.evaluate<string>('getComputedStyle(document.body).fontFamily')).toBe('sans-serif');
    await page.locator('#go').click();
    await page.locator('#done').waitFor();
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);

  it('pageCsp: the page runs its own inline script and handler, and an injected script is refused', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${service.url}/pages/waiting`);
    await expect(page.locator('#n').textContent()).resolves.toBe('script ran');
    expect(await page.evaluate<string>("getComputedStyle(document.getElementById('n')).color")).toBe('rgb(51, 255, 102)');
    await page.locator('#retry').click();
    await expect(page.locator('#n').textContent()).resolves.toBe('clicked');
    expect(violations).toEqual([]);

    const injected = await watchedPage();
    await injected.page.goto(`${service.url}/pages/injected`);
    await expect(injected.page.locator('#n').textContent()).resolves.toBe('script ran');
    expect(await injected.page.title()).toBe('Starting');
    await injected.page.waitForFunction(() => true);
    for (let i = 0; i < 50 && injected.violations.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(injected.violations.join('\n')).toMatch(/script-src/);
    await page.close();
    await injected.page.close();
  }, 60_000);
});
