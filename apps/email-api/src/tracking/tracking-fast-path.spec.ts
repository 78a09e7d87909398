import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { MetricsService } from '@platform/platform';
import { MailEventsService } from '../mail-events/mail-events.service';
import { installTrackingFastPath, PIXEL } from './tracking-fast-path';
import { TrackingLinks } from './tracking-links';
import { TrackingTokens } from './tracking-tokens';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const ID = 'eml_0a1b2c3d4e5f6g7h8i9j';

/** The fast path in front of a stand-in for Express (answers 418 "router"), with recording fakes. */
describe('tracking fast path', () => {
  const tokens = new TrackingTokens(Buffer.from('k'.repeat(32)));
  const opens: unknown[][] = [];
  const clicks: unknown[][] = [];
  let failTarget = false;
  // the links of the mails read (MailEventsService keeps them in memory)
  const read = new Map<string, string[]>();
  let reads = 0;
  const events = {
    trackOpen: (...args: unknown[]) => void opens.push(args),
    trackClick: (...args: unknown[]) => void clicks.push(args),
    clickTarget: async (emailId: string, index: number) => {
      reads++;
      if (failTarget) throw new Error('database gone');
      const links = emailId === ID ? [`https://shop.test/a?x=1&y=2`, 'https://shop.test/b'] : [];
      read.set(emailId, links);
      return links[index] ?? null;
    },
    knownClickTarget: (emailId: string, index: number) => {
      const links = read.get(emailId);
      return links === undefined ? undefined : (links[index] ?? null);
    },
  };
  const metrics = new MetricsService('email-api');
  const routed: string[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    server = createServer((req, res) => {
      routed.push(`${req.method} ${req.url}`);
      res.writeHead(418).end('router');
    });
    const providers = new Map<unknown, unknown>([
      [TrackingLinks, { tokens }],
      [MailEventsService, events],
      [MetricsService, metrics],
    ]);
    // Trusted proxies: loopback only (the tests' peer).
    const trust = (addr: string) => addr === '127.0.0.1' || addr === '::ffff:127.0.0.1' || addr === '::1';
    const app = {
      getHttpServer: () => server,
      get: (token: unknown) => providers.get(token),
      getHttpAdapter: () => ({ getInstance: () => ({ get: (setting: string) => (setting === 'trust proxy fn' ? trust : undefined) }) }),
    } as unknown as NestExpressApplication;
    installTrackingFastPath(app, { LOG_LEVEL: 'info' });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    opens.length = 0;
    clicks.length = 0;
    routed.length = 0;
    failTarget = false;
    read.clear();
    reads = 0;
  });
  const get = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { redirect: 'manual', ...init, headers: { 'user-agent': BROWSER, ...(init.headers as Record<string, string>) } });

  it('answers the pixel (GIF, no-store, request id) and records the open; HEAD too; a wrong token records nothing', async () => {
    const res = await get(`/t/o/${tokens.open(ID)}?utm=x`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PIXEL);
    const head = await get(`/t/o/${tokens.open(ID)}`, { method: 'HEAD', headers: { 'x-request-id': 'req-1' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-request-id')).toBe('req-1');
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const wrong = await get(`/t/o/${tokens.open(ID).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`);
    expect(wrong.status).toBe(200);
    expect(opens).toEqual([
      [ID, null, BROWSER],
      [ID, null, BROWSER],
    ]);
    expect(routed).toEqual([]);
  });

  it("flags privacy proxies by agent and by the client's address behind trusted proxies only", async () => {
    await get(`/t/o/${tokens.open(ID)}`, { headers: { 'user-agent': 'Mozilla/5.0' } });
    await get(`/t/o/${tokens.open(ID)}`, { headers: { 'x-forwarded-for': '17.58.1.2' } });
    // 10.0.0.1 is not trusted: it is the client, whatever it forwards
    await get(`/t/o/${tokens.open(ID)}`, { headers: { 'x-forwarded-for': '17.58.1.2, 10.0.0.1' } });
    expect(opens.map((o) => o[1])).toEqual(['privacy_proxy', 'privacy_proxy', null]);
  });

  it('redirects to the link of the mail and records the click, reading the mail once; HEAD is a scanner', async () => {
    const res = await get(`/t/c/${tokens.click(ID, 0)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.test/a?x=1&y=2');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-length')).toBe('0');
    const head = await get(`/t/c/${tokens.click(ID, 1)}`, { method: 'HEAD' });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toBe('https://shop.test/b');
    expect(clicks).toEqual([
      [ID, 0, null, BROWSER, 'GET'],
      [ID, 1, 'scanner', BROWSER, 'HEAD'],
    ]);
    // the second click was answered from the links read for the first
    expect(reads).toBe(1);
    expect(routed).toEqual([]);
  });

  it('hands everything else to the router without recording: wrong tokens and links, encoded or odd paths, other methods, failures', async () => {
    const paths = [
      `/t/c/${tokens.click(ID, 0).replace('.0.', '.1.')}`, // tampered index
      `/t/c/${tokens.click(ID, 7)}`, // signed, but no such link in the mail (its links read)
      `/t/c/${tokens.click(ID, 7)}`, // (its links known)
      `/t/c/${tokens.click(ID, 0).replace('.', '%2E')}`, // to percent-decode
      '/t/c/%E0%A4%A',
      `/t/o/${tokens.open(ID)}/`,
      '/t/o/',
      '/T/O/x',
    ];
    for (const path of paths) expect((await get(path)).status).toBe(418);
    expect((await get(`/t/o/${tokens.open(ID)}`, { method: 'POST' })).status).toBe(418);
    expect(reads).toBe(1);
    read.clear();
    failTarget = true;
    expect((await get(`/t/c/${tokens.click(ID, 0)}`)).status).toBe(418);
    expect(routed).toHaveLength(paths.length + 2);
    expect(opens).toEqual([]);
    expect(clicks).toEqual([]);
  });

  it("counts its answers under the controller's route templates", async () => {
    await get(`/t/o/${tokens.open(ID)}`);
    await get(`/t/c/${tokens.click(ID, 0)}`);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/t\/o\/:token",status="200",service="email-api"\} \d+/);
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/t\/c\/:token",status="302",service="email-api"\} \d+/);
  });
});
