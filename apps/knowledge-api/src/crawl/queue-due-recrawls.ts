import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ProgressService } from '../progress/progress.service';
import type { CrawlRequest } from '../progress/progress.types';
import { SourcesService } from '../sources/sources.service';
import type { SourceRow } from '../sources/sources.types';

/**
 * Use case: the scheduled recrawls. Claims the crawled sources whose `update_frequency` came due
 * (sources: their next date moves on at once, so no other replica claims them) and queues a crawl
 * of each (progress), except for a source without a URL or one whose crawl is queued or running.
 * The crawl worker runs it on every tick; a queued recrawl then runs like any crawl.
 */
@Injectable()
export class QueueDueRecrawls {
  constructor(
    private readonly sources: SourcesService,
    private readonly progress: ProgressService,
  ) {}

  /** Returns how many recrawls were queued. */
  async execute(limit: number): Promise<number> {
    let queued = 0;
    for (const source of await this.sources.claimDueRecrawls(limit)) {
      if (!source.url || (await this.progress.activeFor(source.source_id))) continue;
      await this.progress.create(randomUUID(), recrawlRequest(source, source.url), source.source_id);
      queued++;
    }
    return queued;
  }
}

/** The crawl request of a source's recrawl: its URL, type, tags and settings as stored (defaults 7 days, depth 2). */
export function recrawlRequest(source: SourceRow, url: string): CrawlRequest {
  return {
    url,
    knowledge_type: source.knowledge_type,
    tags: source.tags,
    update_frequency: source.update_frequency ?? 7,
    max_depth: source.max_depth ?? 2,
    recrawl: true,
  };
}
