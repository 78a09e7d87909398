// Crawls (CrawlService): an address of our own network is never fetched, whether written in the
// URL (refused when the crawl is requested), served by DNS for a public-looking name, or named by
// a redirect (both refused when the crawl runs: the page is skipped and the crawl fails).
import { Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { startSsrfTargets, type SsrfTargets } from '@platform/testing';
import type { KnowledgeApiConfig } from '../config';
import type { ProgressReporter, ProgressService } from '../progress/progress.service';
import type { ProgressRow } from '../progress/progress.types';
import type { KnowledgeStore } from '../sources/knowledge-store.service';
import { CrawlService } from './crawl.service';
import { PageConverter } from './page-converter';

describe('crawls refuse private addresses', () => {
  let targets: SsrfTargets;
  let port: number;
  let hits: string[];

  beforeAll(async () => {
    Logger.overrideLogger(false); // the failed crawls are expected
    targets = await startSsrfTargets({
      loopbackName: 'docs.example.com',
      redirectStatus: 301,
      answer: (path) => (path === '/robots.txt' ? { status: 404 } : { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><title>t</title><body><p>hello</p></body></html>' }),
    });
    ({ port, hits } = targets);
  });
  afterAll(() => targets.close());
  beforeEach(() => (hits.length = 0));

  const config = (allowPrivate: boolean) =>
    ({ CRAWL_ALLOW_PRIVATE: allowPrivate, CRAWL_MAX_PAGE_BYTES: 1 << 20, CRAWL_PAGE_TIMEOUT_MS: 5000, CRAWL_CONCURRENCY: 2, CRAWL_HOST_DELAY_MS: 0, CRAWL_MAX_PAGES: 10 }) as KnowledgeApiConfig;
  const store = { store: async () => { throw new Error('nothing may be stored'); } } as unknown as KnowledgeStore;
  const converter = new PageConverter({ CRAWL_PARSE_THREADS: 0 } as KnowledgeApiConfig);

  /** Runs one crawl of `url` to its end; its log and how it ended. */
  async function crawl(allowPrivate: boolean, url: string): Promise<{ logs: string[]; failed: string | null }> {
    const logs: string[] = [];
    let failed: string | null = null;
    const reporter = {
      abort: new AbortController(),
      attempt: 1,
      isLost: false,
      isCancelled: false,
      heartbeat: async () => undefined,
      phase: async (_p: string, _f: number, _patch: unknown, line?: string) => void (line && logs.push(line)),
      log: async (line: string) => void logs.push(line),
      check: () => undefined,
      complete: async () => undefined,
      fail: async (_state: string, message: string) => void (failed = message),
    } as unknown as ProgressReporter;
    const row = { progress_id: 'p1', request: { url, knowledge_type: 'technical', tags: [], update_frequency: 7, max_depth: 1 } } as unknown as ProgressRow;
    await new CrawlService(config(allowPrivate), {} as ProgressService, store, converter).run(row, reporter);
    return { logs, failed };
  }

  it('refuses a literal private, metadata or IPv6-mapped loopback address when the crawl is requested', async () => {
    const service = new CrawlService(config(false), {} as ProgressService, store, converter);
    for (const url of targets.privateUrls('/docs')) {
      const err = await service.start({ url, knowledge_type: 'technical' } as never).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).getStatus()).toBe(400);
      expect((err as ApiError).message).toMatch(/url cannot be crawled: .*a (loopback|private|metadata) address/);
    }
    expect(hits).toHaveLength(0);
  });

  it('skips a name that the DNS server resolves to loopback or to the metadata address', async () => {
    for (const [url, reason] of [
      [`http://docs.example.com:${port}/`, /BLOCKED_ADDRESS: docs\.example\.com resolves to 127\.0\.0\.1, a loopback address/],
      ['http://meta.example.com/latest/', /BLOCKED_ADDRESS: meta\.example\.com resolves to 169\.254\.169\.254, a metadata address/],
    ] as const) {
      const { logs, failed } = await crawl(false, url);
      expect(logs.some((l) => reason.test(l))).toBe(true);
      expect(failed).toMatch(/could be crawled/);
    }
    expect(targets.dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['docs.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('checks every redirect hop: a redirect to the metadata address is refused even with CRAWL_ALLOW_PRIVATE', async () => {
    const to = encodeURIComponent('http://meta.example.com/latest/meta-data/');
    const { logs, failed } = await crawl(true, `http://docs.example.com:${port}/start?to=${to}`);
    expect(logs.some((l) => /BLOCKED_ADDRESS: meta\.example\.com resolves to 169\.254\.169\.254, a metadata address/.test(l))).toBe(true);
    expect(failed).toMatch(/could be crawled/);
    expect(hits).toEqual(['/robots.txt', `/start?to=${to}`]);
  });
});
