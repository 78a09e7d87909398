// Video URLs (VideosService.storeFromUrl, the MCP tool's download): an address of our own network
// is never reached, whether written in the URL, served by DNS for a public-looking name, or named
// by a redirect.
import { ApiError } from '@platform/errors';
import { startSsrfTargets, type SsrfTargets } from '@platform/testing';
import type { AutomationConfig } from '../config';
import type { VideosRepository } from './videos.repository';
import { VideosService } from './videos.service';

describe('video URLs refuse private addresses', () => {
  let targets: SsrfTargets;
  let port: number;
  let hits: string[];

  beforeAll(async () => {
    targets = await startSsrfTargets({ loopbackName: 'videos.example.com', redirectStatus: 302, answer: () => ({ status: 200, headers: { 'content-type': 'video/mp4' }, body: 'mp4' }) });
    ({ port, hits } = targets);
  });
  afterAll(() => targets.close());
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
    for (const url of targets.privateUrls('/v.mp4', 'https')) {
      expect(await refusal(false, url)).toMatch(/video_url cannot be downloaded: \S+ resolves to \S+, a (loopback|private|metadata) address/);
    }
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    expect(await refusal(false, `https://videos.example.com:${port}/v.mp4`)).toMatch(/videos\.example\.com resolves to 127\.0\.0\.1, a loopback address/);
    expect(await refusal(false, 'https://meta.example.com/v.mp4')).toMatch(/meta\.example\.com resolves to 169\.254\.169\.254, a metadata address/);
    expect(targets.dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['videos.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('checks every redirect hop: a redirect to the metadata address is refused even with loopback opened', async () => {
    for (const to of ['http://meta.example.com/latest/meta-data/', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/latest/meta-data/']) {
      expect(await refusal(true, targets.redirectTo(to))).toMatch(/resolves to \S+, a metadata address/);
    }
    expect(hits).toHaveLength(3);
  });
});
