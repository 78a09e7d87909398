// Video URLs (VideosService.storeFromUrl, the MCP tool's download): an address of our own network
// is never reached, whether written in the URL, served by DNS for a public-looking name, or named
// by a redirect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '@platform/errors';
import { routeSystemLookupTo, startFakeDnsServer, type FakeDnsServer } from '@platform/testing';
import type { AutomationConfig } from '../config';
import type { VideosRepository } from './videos.repository';
import { VideosService } from './videos.service';

describe('video URLs refuse private addresses', () => {
  let server: Server;
  let port: number;
  let dns: FakeDnsServer;
  let restoreDns: () => void;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url!);
      const to = new URL(req.url!, 'http://x').searchParams.get('to');
      if (to) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'video/mp4' }).end('mp4');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    dns = await startFakeDnsServer({ 'videos.example.com': { A: ['127.0.0.1'] }, 'meta.example.com': { A: ['169.254.169.254'] } });
    restoreDns = routeSystemLookupTo(dns, ['videos.example.com', 'meta.example.com']);
  });
  afterAll(async () => {
    restoreDns();
    await dns.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (hits.length = 0));

  const videos = (allowPrivate: boolean) =>
    new VideosService({} as VideosRepository, { NODE_ENV: 'test', AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: allowPrivate, VIDEO_MAX_MB: 1, DATA_DIR: '/nonexistent' } as AutomationConfig);

  async function refusal(allowPrivate: boolean, url: string): Promise<string> {
    const err = await videos(allowPrivate).storeFromUrl(1, url).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).getStatus()).toBe(400);
    return (err as ApiError).message;
  }

  it('refuses a literal private, metadata or IPv6-mapped loopback address', async () => {
    for (const url of [`https://127.0.0.1:${port}/v.mp4`, 'https://192.168.1.10/v.mp4', 'https://169.254.169.254/latest/meta-data/', `https://[::ffff:127.0.0.1]:${port}/v.mp4`]) {
      expect(await refusal(false, url)).toMatch(/video_url cannot be downloaded: \S+ resolves to \S+, a (loopback|private|metadata) address/);
    }
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    expect(await refusal(false, `https://videos.example.com:${port}/v.mp4`)).toMatch(/videos\.example\.com resolves to 127\.0\.0\.1, a loopback address/);
    expect(await refusal(false, 'https://meta.example.com/v.mp4')).toMatch(/meta\.example\.com resolves to 169\.254\.169\.254, a metadata address/);
    expect(dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['videos.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('checks every redirect hop: a redirect to the metadata address is refused even with loopback opened', async () => {
    for (const to of ['http://meta.example.com/latest/meta-data/', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/latest/meta-data/']) {
      expect(await refusal(true, `http://videos.example.com:${port}/r?to=${encodeURIComponent(to)}`)).toMatch(/resolves to \S+, a metadata address/);
    }
    expect(hits).toHaveLength(3);
  });
});
