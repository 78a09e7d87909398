import { Injectable } from '@nestjs/common';
import { toPayload, type ProgressPayload } from './progress-payload';
import { ProgressRepository } from './progress.repository';

/**
 * The stored progress of a crawl, read for the socket gateways when a client subscribes (whichever
 * replica runs the crawl). A service of its own because ProgressService emits through the
 * gateways: they cannot inject it back.
 */
@Injectable()
export class ProgressSnapshots {
  constructor(private readonly progress: ProgressRepository) {}

  /** The payload of this progress id, or null when there is none. */
  async find(progressId: string): Promise<ProgressPayload | null> {
    const row = await this.progress.find(progressId);
    return row ? toPayload(row) : null;
  }
}
