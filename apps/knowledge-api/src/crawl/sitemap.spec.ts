import { parseSitemap } from './sitemap';

describe('parseSitemap', () => {
  it('reads a urlset with a namespace, one or many entries', () => {
    const many = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc> https://x.dev/a </loc><lastmod>2025-01-01</lastmod></url><url><loc>https://x.dev/b?x=1&amp;y=2</loc></url></urlset>`;
    expect(parseSitemap(many)).toEqual({ pages: ['https://x.dev/a', 'https://x.dev/b?x=1&y=2'], sitemaps: [] });
    expect(parseSitemap('<urlset><url><loc>https://x.dev/only</loc></url></urlset>').pages).toEqual(['https://x.dev/only']);
  });

  it('reads a sitemap index', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://x.dev/s1.xml</loc></sitemap><sitemap><loc>https://x.dev/s2.xml</loc></sitemap></sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({ pages: [], sitemaps: ['https://x.dev/s1.xml', 'https://x.dev/s2.xml'] });
  });

  it('gives nothing for what is not a sitemap', () => {
    expect(parseSitemap('<html><body>hi</body></html>')).toEqual({ pages: [], sitemaps: [] });
    expect(parseSitemap('not xml <<<')).toEqual({ pages: [], sitemaps: [] });
  });
});
