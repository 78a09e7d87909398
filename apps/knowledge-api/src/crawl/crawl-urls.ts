/** Pure URL rules of the crawl: classification, normalisation, same-site test. */

export type CrawlKind = 'sitemap' | 'text' | 'recursive';

/** The spec's rule: `…sitemap.xml` → sitemap, a `.txt` URL (llms.txt) → one document, else recursive. */
export function classifyUrl(url: string): CrawlKind {
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith('sitemap.xml') || (path.includes('sitemap') && path.endsWith('.xml'))) return 'sitemap';
  if (path.endsWith('.txt')) return 'text';
  return 'recursive';
}

const SKIPPED_EXTENSIONS =
  /\.(png|jpe?g|gif|svg|webp|ico|bmp|tiff?|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|deb|rpm|apk|mp[34]|m4a|wav|ogg|webm|avi|mov|mkv|woff2?|ttf|otf|eot|css|js|mjs|map|json|xml|rss|atom|docx?|xlsx?|pptx?|csv)$/i;

/**
 * One spelling per page: fragment dropped, host lower-cased (URL does it), default port dropped,
 * empty path → "/", tracking parameters (utm_*, fbclid, gclid) removed, remaining query sorted.
 * Returns null for anything but http(s).
 */
export function normalizeUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  const params = [...url.searchParams.entries()]
    .filter(([k]) => !/^utm_/i.test(k) && k !== 'fbclid' && k !== 'gclid')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return url.href;
}

/** Same site: same host, ignoring a leading "www." (and any port on that host). */
export function sameSite(a: string, b: string): boolean {
  const host = (u: string) => new URL(u).hostname.replace(/^www\./, '');
  return host(a) === host(b);
}

/** Links a recursive crawl follows: same site, not an obvious binary or asset by extension. */
export function followable(url: string, root: string): boolean {
  if (!sameSite(url, root)) return false;
  return !SKIPPED_EXTENSIONS.test(new URL(url).pathname);
}

export function isHtml(contentType: string | null): boolean {
  return !contentType || /text\/html|application\/xhtml\+xml/i.test(contentType);
}

export function isPlainText(contentType: string | null): boolean {
  return !!contentType && /text\/(plain|markdown|x-markdown)/i.test(contentType);
}
