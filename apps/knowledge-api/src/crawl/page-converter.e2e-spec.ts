import path from 'node:path';
import { buildForTest } from '@platform/testing';
import type { KnowledgeApiConfig } from '../config';
import { htmlToMarkdown } from '../markdown/html-to-markdown';
import type { PageConverter } from './page-converter';

/**
 * PageConverter as the built service runs it: pages converted on worker threads (a piscina pool of
 * the compiled html-to-markdown.worker.js beside it) give what htmlToMarkdown gives on the event loop,
 * spread over the threads; a thread that dies fails the page it held and the pool goes on with another.
 */
const BUILT = path.resolve(__dirname, '../../../../dist/out/apps/knowledge-api/src/crawl/page-converter.js');

const page = (i: number) => `<!doctype html><html><head><title>Page ${i}</title></head><body><nav><a href="/">Home</a></nav>
<main><article><h1>Page ${i}</h1><p>${`Station ${i} relays the signal &amp; keeps a log. `.repeat(15)}</p><p><a href="/p/${i + 1}">next</a></p>
<pre><code class="language-py">print(${i})</code></pre></article></main></body></html>`;

/** The pool's worker threads. */
const threadsOf = (converter: PageConverter) => (converter as unknown as { pool: { threads: Array<{ threadId: number; terminate(): Promise<number> }> } }).pool.threads;

describe('PageConverter threads (e2e, built)', () => {
  let converter: PageConverter;

  beforeAll(async () => {
    await buildForTest('knowledge-api');
    const { PageConverter: Built } = (await import(BUILT)) as { PageConverter: new (config: KnowledgeApiConfig) => PageConverter };
    converter = new Built({ CRAWL_PARSE_THREADS: 2 } as KnowledgeApiConfig);
  }, 120_000);
  afterAll(() => converter?.onModuleDestroy());

  it('converts pages on its threads as htmlToMarkdown does on the event loop', async () => {
    expect(converter.threadCount).toBe(2);
    const pages = await Promise.all(Array.from({ length: 20 }, (_, i) => converter.convert(page(i), `https://docs.example.com/p/${i}`, { links: i % 2 === 0 })));
    pages.forEach((p, i) => {
      expect(p).toEqual(htmlToMarkdown(page(i), `https://docs.example.com/p/${i}`, { links: i % 2 === 0 }));
      expect(p.markdown).toContain(`print(${i})`);
    });
    expect(pages[0].links).toContain('https://docs.example.com/p/1');
    expect(pages[1].links).toEqual([]);
    expect(new Set(threadsOf(converter).map((t) => t.threadId)).size).toBe(2);
  });

  it('fails the page of a thread that dies, and converts the next pages on another', async () => {
    const pending = Array.from({ length: 4 }, (_, i) => converter.convert(page(i), `https://docs.example.com/p/${i}`, { links: false }));
    const [dying] = threadsOf(converter);
    const deadId = dying.threadId;
    await dying.terminate();
    const settled = await Promise.allSettled(pending);
    expect(settled.some((r) => r.status === 'rejected')).toBe(true);
    const again = await Promise.all([0, 1, 2].map((i) => converter.convert(page(i), `https://docs.example.com/p/${i}`, { links: false })));
    expect(again.map((p) => p.title)).toEqual(['Page 0', 'Page 1', 'Page 2']);
    expect(threadsOf(converter).map((t) => t.threadId)).not.toContain(deadId);
  });
});
