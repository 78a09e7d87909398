import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { assertPublicUrl, isHttpSafetyError, SafeHttpClient } from '@platform/http-safety';
import { KnowledgeApiConfig } from '../config';
import { CrawlCancelled, ProgressService, type ProgressReporter } from '../progress/progress.service';
import type { CrawlRequest, ProgressRow } from '../progress/progress.types';
import { KnowledgeStore } from '../sources/knowledge-store.service';
import { Crawler, type CrawledPage } from './crawler';
import { classifyUrl } from './crawl-urls';
import { PageConverter } from './page-converter';
import type { CrawlRequestDto } from './dto/crawl-request.dto';

/**
 * The source id of a crawl: the URL's host (the spec's "URL domain", `:` of a port or an IPv6
 * address as `_`) and the first 8 hex digits of the SHA-256 of the normalised start URL, e.g.
 * `docs.example.com-3f2a9c1b`. Stable: a crawl of the same URL (a refresh, a scheduled recrawl)
 * refreshes that source; two crawls of one domain from different URLs are two sources. It never
 * contains `:`, so it cannot equal an upload's id (`file:<name>`, documents/documents.service.ts).
 */
export function sourceIdOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host.toLowerCase().replace(/:/g, '_')}-${createHash('sha256').update(parsed.href).digest('hex').slice(0, 8)}`;
}

export function estimatedDuration(kind: string, maxDepth: number): string {
  if (kind === 'text') return 'under a minute';
  if (kind === 'sitemap') return '1-5 minutes';
  return maxDepth <= 1 ? 'under a minute' : `${maxDepth - 1}-${maxDepth * 2} minutes`;
}

@Injectable()
export class CrawlService {
  private readonly logger = new Logger(CrawlService.name);

  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly progress: ProgressService,
    private readonly store: KnowledgeStore,
    private readonly converter: PageConverter,
  ) {}

  /** Queues a crawl (any replica's worker runs it) and answers at once. */
  async start(dto: CrawlRequestDto): Promise<{ progressId: string; kind: string; request: CrawlRequest }> {
    let url: URL;
    try {
      url = assertPublicUrl(dto.url, { allowPrivate: this.config.CRAWL_ALLOW_PRIVATE });
    } catch (err) {
      if (isHttpSafetyError(err)) throw new ApiError(400, 'BAD_REQUEST', `url cannot be crawled: ${err.message}`);
      throw err;
    }
    const request: CrawlRequest = {
      url: url.href,
      knowledge_type: dto.knowledge_type,
      tags: dto.tags ?? [],
      update_frequency: dto.update_frequency ?? 7,
      max_depth: dto.max_depth ?? 2,
    };
    const sourceId = sourceIdOf(url.href);
    const running = await this.progress.activeFor(sourceId);
    if (running) {
      throw new ApiError(409, 'CONFLICT', `A crawl of ${sourceId} is already ${running.run_state} (progress_id ${running.progress_id}); follow it or cancel it first`);
    }
    const progressId = randomUUID();
    await this.progress.create(progressId, request, sourceId);
    return { progressId, kind: classifyUrl(url.href), request };
  }

  /** Runs one claimed crawl to its end; `external` aborts it (this replica shuts down). */
  async run(row: ProgressRow, reporter: ProgressReporter): Promise<void> {
    const req = row.request;
    const client = new SafeHttpClient({
      allowPrivate: this.config.CRAWL_ALLOW_PRIVATE,
      maxBytes: this.config.CRAWL_MAX_PAGE_BYTES,
      timeoutMs: this.config.CRAWL_PAGE_TIMEOUT_MS,
      headersTimeoutMs: this.config.CRAWL_PAGE_TIMEOUT_MS,
      bodyTimeoutMs: this.config.CRAWL_PAGE_TIMEOUT_MS,
      maxRedirects: 5,
    });
    const heartbeat = setInterval(() => void reporter.heartbeat().catch(() => undefined), 1000);
    heartbeat.unref();
    try {
      const result = await this.crawl(req, reporter, client);
      await reporter.complete(
        { chunksStored: result.chunksStored, wordCount: result.wordCount, codeExamplesStored: result.codeExamplesStored, sourceId: result.sourceId },
        `Crawl completed: ${result.pages} pages, ${result.chunksStored} chunks stored`,
      );
    } catch (err) {
      if (reporter.isLost) {
        this.logger.warn(`crawl ${row.progress_id} was taken over by another replica; this run stops`);
      } else if (reporter.isCancelled || err instanceof CrawlCancelled) {
        await reporter.fail('cancelled', 'Crawl cancelled').catch(() => undefined);
      } else {
        this.logger.error(`crawl ${row.progress_id} failed: ${(err as Error).message}`, (err as Error).stack);
        await reporter.fail('error', (err as Error).message).catch(() => undefined);
      }
    } finally {
      clearInterval(heartbeat);
      await client.close().catch(() => undefined);
    }
  }

  private async crawl(req: CrawlRequest, reporter: ProgressReporter, client: SafeHttpClient) {
    const kind = classifyUrl(req.url);
    const crawler = new Crawler({
      client,
      concurrency: this.config.CRAWL_CONCURRENCY,
      hostDelayMs: this.config.CRAWL_HOST_DELAY_MS,
      maxPages: this.config.CRAWL_MAX_PAGES,
      maxDepth: req.max_depth,
      signal: reporter.abort.signal,
      convert: (html, url, opts) => this.converter.convert(html, url, opts),
      onPage: (processed, total, url) =>
        reporter.phase('crawling', total ? processed / total : 0, { currentUrl: url, processedPages: processed, totalPages: total }),
      log: (line) => reporter.log(line),
    });

    // analyzing
    const crawlStarted = Date.now();
    if (reporter.attempt > 1) await reporter.log(`Taken over from a replica that stopped (attempt ${reporter.attempt}): crawling again from the start`);
    await reporter.phase('analyzing', 0, { currentUrl: req.url }, `Analyzing ${req.url} (${kind === 'sitemap' ? 'sitemap' : kind === 'text' ? 'text document' : `recursive crawl, depth ${req.max_depth}`})`);
    let pages: CrawledPage[];
    if (kind === 'sitemap') {
      const urls = await crawler.sitemapPages(req.url);
      await reporter.phase('analyzing', 1, { totalPages: urls.length }, `Sitemap lists ${urls.length} pages`);
      await reporter.phase('crawling', 0, { totalPages: urls.length, processedPages: 0 }, `Crawling ${urls.length} pages with ${this.config.CRAWL_CONCURRENCY} workers`);
      pages = await crawler.pages(urls);
    } else if (kind === 'text') {
      await reporter.phase('analyzing', 1, { totalPages: 1 }, 'Text document: downloaded and processed directly');
      await reporter.phase('crawling', 0, { totalPages: 1, processedPages: 0 }, `Downloading ${req.url}`);
      pages = await crawler.textDocument(req.url);
    } else {
      await reporter.phase('analyzing', 1, { totalPages: 1 }, `Recursive crawl of ${new URL(req.url).host} to depth ${req.max_depth}`);
      await reporter.phase('crawling', 0, { totalPages: 1, processedPages: 0 }, `Crawling with ${this.config.CRAWL_CONCURRENCY} workers`);
      pages = await crawler.recursive(req.url);
    }
    reporter.check();
    const floor = crawler.politenessFloorMs;
    await reporter.phase(
      'crawling',
      1,
      {},
      `Crawled ${pages.length} pages in ${((Date.now() - crawlStarted) / 1000).toFixed(1)} s` +
        (floor > 0 ? ` (the per-host gap alone spreads them over at least ${(floor / 1000).toFixed(1)} s: CRAWL_HOST_DELAY_MS or robots.txt Crawl-delay)` : ''),
    );
    if (pages.length === 0) throw new Error(`no page of ${req.url} could be crawled (see the log for each skipped URL)`);

    const sourceId = sourceIdOf(req.url);
    const first = pages[0];
    const result = await this.store.store(
      {
        source_id: sourceId,
        title: kind === 'recursive' || kind === 'text' ? first.title || sourceId : sourceId,
        description: firstParagraph(first.markdown),
        source_type: 'url',
        url: req.url,
        knowledge_type: req.knowledge_type,
        tags: req.tags,
        update_frequency: req.update_frequency,
        max_depth: req.max_depth,
      },
      pages,
      {
        onlyChanged: true,
        removeMissing: true,
        phase: (phase, fraction, patch, log) => reporter.phase(phase, fraction, patch, log),
      },
    );
    await reporter.phase('finalization', 0, {}, `Finalizing ${sourceId}`);
    return { ...result, pages: pages.length, sourceId };
  }
}

function firstParagraph(markdown: string): string {
  const para = markdown
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p && !p.startsWith('#') && !p.startsWith('```'));
  return (para ?? '').slice(0, 300);
}
