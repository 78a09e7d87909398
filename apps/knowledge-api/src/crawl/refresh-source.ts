import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { ProgressService } from '../progress/progress.service';
import { SourcesService } from '../sources/sources.service';
import { recrawlRequest } from './queue-due-recrawls';

/**
 * Use case: `POST /api/knowledge-items/{source_id}/refresh` (Archon's refresh): queues a recrawl
 * of a crawled source now, with its stored URL, type, tags, depth and update_frequency, as a
 * scheduled recrawl would (only changed pages are chunked again; vanished pages are removed).
 * 404 unknown source; 400 for an upload (nothing to crawl); 409 while a crawl of it is queued or running.
 */
@Injectable()
export class RefreshSource {
  constructor(
    private readonly sources: SourcesService,
    private readonly progress: ProgressService,
  ) {}

  async execute(sourceId: string): Promise<{ progressId: string; url: string; maxDepth: number }> {
    const source = await this.sources.get(sourceId);
    if (source.source_type !== 'url' || !source.url) {
      throw new ApiError(400, 'BAD_REQUEST', `${sourceId} is an uploaded document: upload it again to replace it`);
    }
    const running = await this.progress.activeFor(sourceId);
    if (running) {
      throw new ApiError(409, 'CONFLICT', `A crawl of ${sourceId} is already ${running.run_state} (progress_id ${running.progress_id}); follow it or cancel it first`);
    }
    const progressId = randomUUID();
    const request = recrawlRequest(source, source.url);
    await this.progress.create(progressId, request, sourceId);
    return { progressId, url: source.url, maxDepth: request.max_depth };
  }
}
