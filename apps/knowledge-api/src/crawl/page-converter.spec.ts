import type { KnowledgeApiConfig } from '../config';
import { htmlToMarkdown } from '../markdown/html-to-markdown';
import { PageConverter } from './page-converter';

// From the sources (as Jest runs them) there is no compiled worker script: pages are converted on
// the event loop, with the same result. The threads themselves: page-converter.e2e-spec.ts (built).
const html = `<!doctype html><html><head><title>Guide</title></head><body><nav><a href="/">Home</a></nav>
<main><article><h1>Guide</h1><p>${'Install the relay and start it. '.repeat(20)}</p><p><a href="/next">Next</a></p>
<pre><code class="language-ts">const relay = start();</code></pre></article></main></body></html>`;

describe('PageConverter from the sources', () => {
  it.each([0, 2])('converts on the event loop (CRAWL_PARSE_THREADS=%i) as htmlToMarkdown does', async (threads) => {
    const converter = new PageConverter({ CRAWL_PARSE_THREADS: threads } as KnowledgeApiConfig);
    expect(converter.threadCount).toBe(0);
    const page = await converter.convert(html, 'https://docs.example.com/guide', { links: true });
    expect(page).toEqual(htmlToMarkdown(html, 'https://docs.example.com/guide', { links: true }));
    expect(page.markdown).toContain('```ts\nconst relay = start();\n```');
    expect(page.links).toContain('https://docs.example.com/next');
    await converter.onModuleDestroy();
  });
});
