import { setTimeout as sleep } from 'node:timers/promises';
import { isHttpSafetyError, type SafeHttpClient, type SafeResponse } from '@platform/http-safety';
import robotsParser from 'robots-parser';
import { htmlToMarkdown, type ConvertedPage } from '../markdown/html-to-markdown';
import { classifyUrl, followable, isHtml, isPlainText, normalizeUrl, type CrawlKind } from './crawl-urls';
import { parseSitemap } from './sitemap';

/**
 * Fetches the pages of one crawl. The start URL decides the strategy (the spec's rule):
 * `…sitemap.xml` → every page it lists (sitemap indexes and nested sitemaps followed);
 * a `.txt` URL (llms.txt) → that one document as is; anything else → breadth-first through the
 * same site's links down to `maxDepth` (1 = the start page only), each normalised URL once.
 *
 * Every request goes through the given SafeHttpClient (address rules, timeouts, size cap),
 * respects robots.txt of its host (Disallow for our agent or `*`; `Crawl-delay` raises the gap)
 * and a per-host gap between requests; `concurrency` requests run at once. A page that fails
 * (HTTP error, timeout, too large, not HTML, refused address) is logged and skipped.
 */
export interface CrawledPage {
  url: string;
  title: string;
  markdown: string;
}

export interface CrawlerOptions {
  client: Pick<SafeHttpClient, 'fetch'>;
  concurrency: number;
  hostDelayMs: number;
  maxPages: number;
  maxDepth: number;
  signal: AbortSignal;
  userAgent?: string;
  /** HTML → markdown (PageConverter's worker threads); default `htmlToMarkdown` on the event loop */
  convert?: (html: string, url: string, opts: { links: boolean }) => Promise<ConvertedPage>;
  /** a page was handled (fetched or skipped); `total` is what is known so far (not awaited by the page workers) */
  onPage?: (processed: number, total: number, url: string) => Promise<void> | void;
  log?: (line: string) => Promise<void> | void;
}

export const USER_AGENT = 'knowledge-api-crawler/1.0';
const MAX_SITEMAPS = 100;
const MAX_CRAWL_DELAY_MS = 10_000;

interface Item {
  url: string;
  depth: number;
}

export class Crawler {
  private readonly robots = new Map<string, Promise<ReturnType<typeof robotsParser> | null>>();
  private readonly nextSlot = new Map<string, number>();
  private readonly ua: string;

  constructor(private readonly opts: CrawlerOptions) {
    this.ua = opts.userAgent ?? USER_AGENT;
  }

  kindOf(url: string): CrawlKind {
    return classifyUrl(url);
  }

  /** Sitemap URLs → the page URLs they list (for the analyzing phase). */
  async sitemapPages(sitemapUrl: string): Promise<string[]> {
    const pages: string[] = [];
    const seenPages = new Set<string>();
    const seenMaps = new Set<string>();
    const queue = [sitemapUrl];
    while (queue.length && seenMaps.size < MAX_SITEMAPS && pages.length < this.opts.maxPages) {
      const next = queue.shift()!;
      if (seenMaps.has(next)) continue;
      seenMaps.add(next);
      const res = await this.get(next, 'sitemap');
      if (!res) continue;
      const parsed = parseSitemap(res.text());
      if (!parsed.pages.length && !parsed.sitemaps.length) await this.log(`Sitemap ${next} lists no URLs`);
      for (const map of parsed.sitemaps) {
        const u = normalizeUrl(map, next);
        if (u && !seenMaps.has(u)) queue.push(u);
      }
      for (const page of parsed.pages) {
        const u = normalizeUrl(page, next);
        if (u && !seenPages.has(u) && pages.length < this.opts.maxPages) {
          seenPages.add(u);
          pages.push(u);
        }
      }
    }
    return pages;
  }

  /** One `.txt` (or markdown) document, as is. */
  async textDocument(url: string): Promise<CrawledPage[]> {
    const res = await this.get(url, 'document');
    await this.opts.onPage?.(1, 1, url);
    if (!res) return [];
    const text = res.text();
    const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() || new URL(res.url).pathname.split('/').pop() || res.url;
    return [{ url: normalizeUrl(res.url) ?? url, title, markdown: text.trim() }];
  }

  /** The given pages (a sitemap's), links not followed. */
  pages(urls: string[]): Promise<CrawledPage[]> {
    return this.pool(
      urls.map((url) => ({ url, depth: this.opts.maxDepth })),
      urls[0] ?? '',
    );
  }

  /** Breadth-first through the site of `start`, down to maxDepth. */
  recursive(start: string): Promise<CrawledPage[]> {
    const url = normalizeUrl(start);
    return url ? this.pool([{ url, depth: 1 }], url) : Promise.resolve([]);
  }

  private async pool(initial: Item[], root: string): Promise<CrawledPage[]> {
    const seen = new Set(initial.map((i) => i.url));
    const queue = [...initial];
    const results: CrawledPage[] = [];
    let processed = 0;
    let started = 0;
    let active = 0;
    const { signal, concurrency, maxPages } = this.opts;

    await new Promise<void>((resolve) => {
      const pump = () => {
        while (!signal.aborted && active < concurrency && queue.length && started < maxPages) {
          const item = queue.shift()!;
          started++;
          active++;
          this.visit(item, root)
            .then(async (res) => {
              if (res?.page) results.push(res.page);
              for (const link of res?.links ?? []) {
                if (seen.has(link)) continue;
                seen.add(link);
                if (seen.size <= maxPages) queue.push({ url: link, depth: item.depth + 1 });
              }
              processed++;
              // reported without holding this page's slot: the reporter keeps its writes in order, and
              // a cancel it sees aborts the signal, which stops the pump
              void (async () => this.opts.onPage?.(processed, Math.min(seen.size, maxPages), item.url))().catch(() => undefined);
            })
            .catch(async (err: Error) => {
              processed++;
              if (!signal.aborted) await this.log(`Skipped ${item.url}: ${err.message}`);
            })
            .finally(() => {
              active--;
              pump();
            });
        }
        if (active === 0 && (signal.aborted || !queue.length || started >= maxPages)) resolve();
      };
      pump();
    });
    return results;
  }

  private async visit(item: Item, root: string): Promise<{ page: CrawledPage | null; links: string[] } | null> {
    const res = await this.get(item.url, 'page');
    if (!res) return null;
    const type = res.headers.get('content-type');
    if (isPlainText(type)) {
      const text = res.text();
      return { page: { url: item.url, title: new URL(item.url).pathname.split('/').pop() || item.url, markdown: text.trim() }, links: [] };
    }
    if (!isHtml(type)) {
      await this.log(`Skipped ${item.url}: not HTML (${type})`);
      return null;
    }
    const follow = item.depth < this.opts.maxDepth;
    const converted = this.opts.convert ? await this.opts.convert(res.text(), res.url, { links: follow }) : htmlToMarkdown(res.text(), res.url, { links: follow });
    const links = follow
      ? converted.links
          .map((l) => normalizeUrl(l))
          .filter((l): l is string => !!l && followable(l, root))
      : [];
    if (!converted.markdown) {
      await this.log(`Skipped ${item.url}: no readable content`);
      return { page: null, links };
    }
    return { page: { url: item.url, title: converted.title || item.url, markdown: converted.markdown }, links };
  }

  /** A GET under the crawl's rules; null (logged) when robots.txt forbids it or it fails. */
  private async get(url: string, what: string): Promise<SafeResponse | null> {
    if (!(await this.allowed(url))) {
      await this.log(`Skipped ${url}: disallowed by robots.txt`);
      return null;
    }
    await this.politeSlot(url);
    this.opts.signal.throwIfAborted();
    try {
      const res = await this.opts.client.fetch(url, { headers: { 'user-agent': this.ua, accept: 'text/html,application/xhtml+xml,text/plain,text/markdown,application/xml;q=0.9,*/*;q=0.5' }, signal: this.opts.signal });
      if (!res.ok) {
        await this.log(`Skipped ${what} ${url}: HTTP ${res.status}`);
        return null;
      }
      return res;
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      const reason = isHttpSafetyError(err) ? `${err.code}: ${err.message}` : (err as Error).message;
      await this.log(`Skipped ${what} ${url}: ${reason}`);
      return null;
    }
  }

  private allowed(url: string): Promise<boolean> {
    const origin = new URL(url).origin;
    let robots = this.robots.get(origin);
    if (!robots) {
      robots = this.fetchRobots(origin);
      this.robots.set(origin, robots);
    }
    return robots.then((r) => !r || r.isAllowed(url, this.ua) !== false);
  }

  private async fetchRobots(origin: string): Promise<ReturnType<typeof robotsParser> | null> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      await this.politeSlot(robotsUrl);
      const res = await this.opts.client.fetch(robotsUrl, { headers: { 'user-agent': this.ua }, signal: this.opts.signal });
      if (!res.ok) return null; // no robots.txt: everything allowed
      const parsed = robotsParser(robotsUrl, res.text());
      const delay = parsed.getCrawlDelay(this.ua);
      if (delay && delay > 0) this.hostDelay.set(new URL(origin).host, Math.min(MAX_CRAWL_DELAY_MS, delay * 1000));
      return parsed;
    } catch {
      return null;
    }
  }

  private readonly hostDelay = new Map<string, number>();

  private readonly gapFloor = new Map<string, number>();

  /**
   * The politeness floor of the crawl so far: the longest any host's requests had to be spread out by
   * its gap (requests − 1 times the gap), in ms. The crawl cannot take less than this, whatever the
   * engine costs: it is reported apart from the engine's own time. 0 without a gap.
   */
  get politenessFloorMs(): number {
    return Math.max(0, ...this.gapFloor.values());
  }

  /** Waits for this host's next free slot: requests to one host start at least the host delay apart. */
  private async politeSlot(url: string): Promise<void> {
    const host = new URL(url).host;
    const gap = Math.max(this.opts.hostDelayMs, this.hostDelay.get(host) ?? 0);
    if (gap <= 0) return;
    this.gapFloor.set(host, this.gapFloor.has(host) ? this.gapFloor.get(host)! + gap : 0);
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot.get(host) ?? 0);
    this.nextSlot.set(host, slot + gap);
    if (slot > now) await sleep(slot - now, undefined, { signal: this.opts.signal });
  }

  private async log(line: string): Promise<void> {
    await this.opts.log?.(line);
  }
}
