import { classifyUrl, followable, isHtml, normalizeUrl, sameSite } from './crawl-urls';

describe('crawl URL rules', () => {
  it.each([
    ['https://x.dev/sitemap.xml', 'sitemap'],
    ['https://x.dev/docs/sitemap-index.xml', 'sitemap'],
    ['https://x.dev/llms.txt', 'text'],
    ['https://x.dev/llms-full.txt?v=1', 'text'],
    ['https://x.dev/docs/', 'recursive'],
    ['https://x.dev/feed.xml', 'recursive'],
  ])('classifies %s as %s', (url, kind) => expect(classifyUrl(url)).toBe(kind));

  it('normalises: fragment, default port, tracking parameters, sorted query', () => {
    expect(normalizeUrl('HTTPS://Docs.X.dev:443/a?b=2&utm_source=t&a=1#top')).toBe('https://docs.x.dev/a?a=1&b=2');
    expect(normalizeUrl('/b#x', 'http://x.dev/a/')).toBe('http://x.dev/b');
    expect(normalizeUrl('mailto:a@b.c')).toBeNull();
    expect(normalizeUrl('javascript:void(0)')).toBeNull();
  });

  it('follows same-site pages only, skipping assets', () => {
    expect(sameSite('https://www.x.dev/a', 'https://x.dev/')).toBe(true);
    expect(followable('https://x.dev/guide', 'https://x.dev/')).toBe(true);
    expect(followable('https://other.dev/guide', 'https://x.dev/')).toBe(false);
    expect(followable('https://x.dev/logo.png', 'https://x.dev/')).toBe(false);
    expect(isHtml('text/html; charset=utf-8')).toBe(true);
    expect(isHtml('application/pdf')).toBe(false);
  });
});
