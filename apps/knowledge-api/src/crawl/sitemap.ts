import { XMLParser } from 'fast-xml-parser';

/**
 * A sitemap (`<urlset>`) gives page URLs; a sitemap index (`<sitemapindex>`) gives further
 * sitemaps. Namespaced or not, single entry or many: both come back as arrays of `<loc>` values.
 */
export interface ParsedSitemap {
  pages: string[];
  sitemaps: string[];
}

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, processEntities: true, trimValues: true });

function list<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function locs(entries: unknown): string[] {
  return list(entries as Array<{ loc?: unknown }>)
    .map((e) => (e && typeof e === 'object' ? e.loc : e))
    .filter((loc): loc is string | number => typeof loc === 'string' || typeof loc === 'number')
    .map((loc) => String(loc).trim())
    .filter(Boolean);
}

export function parseSitemap(xml: string): ParsedSitemap {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return { pages: [], sitemaps: [] };
  }
  const urlset = doc.urlset as { url?: unknown } | undefined;
  const index = doc.sitemapindex as { sitemap?: unknown } | undefined;
  return { pages: locs(urlset?.url), sitemaps: locs(index?.sitemap) };
}
