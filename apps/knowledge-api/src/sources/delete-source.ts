import { Injectable } from '@nestjs/common';
import { ProgressService } from '../progress/progress.service';
import { SourcesService } from './sources.service';

/**
 * Use case: deleting a source. Its queued or running crawl (or recrawl) is cancelled first (the
 * replica running it stops at its next step; its chunk batches fail once the source is gone), then
 * the source, its chunks and code examples are removed. 404 for an unknown source.
 */
@Injectable()
export class DeleteSource {
  constructor(
    private readonly sources: SourcesService,
    private readonly progress: ProgressService,
  ) {}

  async execute(sourceId: string): Promise<{ pages: number; codeExamples: number; cancelledCrawl: string | null }> {
    await this.sources.get(sourceId);
    const active = await this.progress.activeFor(sourceId);
    let cancelledCrawl: string | null = null;
    if (active) {
      await this.progress.cancel(active.progress_id).catch(() => undefined); // it may have just ended
      cancelledCrawl = active.progress_id;
    }
    const res = await this.sources.delete(sourceId);
    return { ...res, cancelledCrawl };
  }
}
