import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Piscina } from 'piscina';
import { KnowledgeApiConfig } from '../config';
import { htmlToMarkdown, type ConvertedPage } from '../markdown/html-to-markdown';

/** A page for a conversion thread (html-to-markdown.worker.ts). */
export interface ConvertTask {
  html: string;
  url: string;
  links: boolean;
}

/**
 * Converts crawled HTML pages to markdown (`htmlToMarkdown`: linkedom, Readability, Turndown) on up
 * to CRAWL_PARSE_THREADS worker threads (a piscina pool), so the event loop keeps fetching, storing
 * and answering while pages are parsed: parsing is most of a crawled page's CPU time. The threads
 * start with the first pages, end after a while idle, and are ended with the service; a thread that
 * dies fails the page it held (the crawl skips it, logged) and the pool starts another.
 *
 * With CRAWL_PARSE_THREADS=0, or where the compiled worker script is absent (the sources run
 * directly, as the tests do), pages are converted on the event loop.
 */
@Injectable()
export class PageConverter implements OnModuleDestroy {
  private readonly pool?: Piscina<ConvertTask, ConvertedPage>;

  constructor(config: KnowledgeApiConfig) {
    const script = join(__dirname, 'html-to-markdown.worker.js');
    if (config.CRAWL_PARSE_THREADS > 0 && existsSync(script)) {
      this.pool = new Piscina({ filename: script, minThreads: 0, maxThreads: config.CRAWL_PARSE_THREADS, idleTimeout: 30_000 });
    }
  }

  /** Worker threads it may use (0: on the event loop). */
  get threadCount(): number {
    return this.pool?.options.maxThreads ?? 0;
  }

  convert(html: string, url: string, opts: { links: boolean }): Promise<ConvertedPage> {
    if (!this.pool) {
      try {
        return Promise.resolve(htmlToMarkdown(html, url, opts));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    return this.pool.run({ html, url, links: opts.links });
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.destroy();
  }
}
