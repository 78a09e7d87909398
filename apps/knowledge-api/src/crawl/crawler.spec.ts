import type { SafeHttpClient } from '@platform/http-safety';
import { Crawler } from './crawler';

/** A site held in memory behind a fake SafeHttpClient: what was requested, in order. */
function fakeClient(pages: Record<string, string>) {
  const requested: string[] = [];
  const client = {
    fetch: async (url: string) => {
      requested.push(url);
      const body = pages[new URL(url).pathname];
      return {
        ok: body !== undefined,
        status: body === undefined ? 404 : 200,
        url,
        headers: new Headers({ 'content-type': new URL(url).pathname.endsWith('.txt') ? 'text/plain' : 'text/html' }),
        text: () => body ?? '',
      };
    },
  } as unknown as Pick<SafeHttpClient, 'fetch'>;
  return { client, requested };
}

const html = (title: string) => `<html><head><title>${title}</title></head><body><main><article><h1>${title}</h1><p>${`${title} text. `.repeat(40)}</p></article></main></body></html>`;

describe('Crawler', () => {
  const site = { '/robots.txt': 'User-agent: *\nAllow: /\n', '/a': html('A'), '/b': html('B'), '/c': html('C') };
  const urls = ['https://docs.example.com/a', 'https://docs.example.com/b', 'https://docs.example.com/c'];

  it('reports the politeness floor: the per-host gap times the requests after the first to that host', async () => {
    const { client, requested } = fakeClient(site);
    const crawler = new Crawler({ client, concurrency: 3, hostDelayMs: 5, maxPages: 10, maxDepth: 1, signal: new AbortController().signal });
    const pages = await crawler.pages(urls);
    expect(pages.map((p) => p.title).sort()).toEqual(['A', 'B', 'C']);
    expect(requested).toHaveLength(4); // robots.txt and three pages
    expect(crawler.politenessFloorMs).toBe(3 * 5);
  });

  it('has no politeness floor without a gap, and converts pages with the given converter', async () => {
    const { client } = fakeClient(site);
    const converted: string[] = [];
    const crawler = new Crawler({
      client,
      concurrency: 3,
      hostDelayMs: 0,
      maxPages: 10,
      maxDepth: 1,
      signal: new AbortController().signal,
      convert: async (_html, url) => {
        converted.push(url);
        return { title: `converted ${new URL(url).pathname}`, markdown: 'text', links: [] };
      },
    });
    const pages = await crawler.pages(urls);
    expect(converted.sort()).toEqual(urls);
    expect(pages.map((p) => p.title).sort()).toEqual(['converted /a', 'converted /b', 'converted /c']);
    expect(crawler.politenessFloorMs).toBe(0);
  });

  it('reports each page without waiting for the report: a slow report holds no fetch', async () => {
    const { client, requested } = fakeClient(site);
    const reports: number[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const crawler = new Crawler({
      client,
      concurrency: 1,
      hostDelayMs: 0,
      maxPages: 10,
      maxDepth: 1,
      signal: new AbortController().signal,
      onPage: async (processed) => {
        reports.push(processed);
        await held; // a progress write that does not come back until the crawl ended
      },
    });
    const pages = await crawler.pages(urls);
    expect(pages).toHaveLength(3);
    expect(requested).toHaveLength(4);
    expect(reports).toEqual([1, 2, 3]);
    release();
  });
});
