import { htmlToMarkdown } from './html-to-markdown';

const article = (body: string) => `<!doctype html><html><head><title>Install guide</title></head><body>
  <nav><a href="/">Home</a> <a href="/docs">Docs</a> Navigation menu text</nav>
  <main><article><h1>Install guide</h1>
  <p>${'The installer copies the files into place and checks every dependency before it starts. '.repeat(6)}</p>
  <h2>Configure</h2><p>${'Edit the configuration file to point at your database and restart the service. '.repeat(5)}</p>
  ${body}</article></main><footer>Copyright footer</footer></body></html>`;

describe('htmlToMarkdown', () => {
  it('keeps the main content and headings, drops navigation, fences code with its language', () => {
    const page = htmlToMarkdown(article('<pre><code class="language-TypeScript">const a = 1;\nconsole.log(a);</code></pre>'), 'https://x.dev/guide');
    expect(page.title).toBe('Install guide');
    expect(page.markdown).toContain('## Configure');
    expect(page.markdown).toContain('```typescript\nconst a = 1;\nconsole.log(a);\n```');
    expect(page.markdown).not.toContain('Navigation menu text');
    expect(page.markdown).not.toContain('Copyright footer');
    expect(page.links).toEqual(expect.arrayContaining(['https://x.dev/', 'https://x.dev/docs']));
    const unfollowed = htmlToMarkdown(article('<pre><code class="language-TypeScript">const a = 1;\nconsole.log(a);</code></pre>'), 'https://x.dev/guide', { links: false });
    expect(unfollowed).toEqual({ ...page, links: [] });
  });

  it('keeps text split at entities as one text (escaped as written)', () => {
    const page = htmlToMarkdown(article('<p>Compare a &lt;b&gt; tag &amp; a &gt; sign.</p>'), 'https://x.dev/guide');
    expect(page.markdown).toContain('Compare a <b> tag & a > sign.');
  });
});
