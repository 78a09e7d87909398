import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TranscribeConfig } from '../config';
import { TranscriptionQueues } from '../queue/transcription-queue';
import { uploadDirOf } from './upload-dir';

/**
 * With the in-memory queue, jobs do not survive a restart: uploads left on disk by the previous run
 * belong to nobody and are removed at start. (On Redis, queued jobs keep their uploads.)
 */
@Injectable()
export class UploadJanitor implements OnApplicationBootstrap {
  private readonly logger = new Logger(UploadJanitor.name);

  constructor(
    private readonly config: TranscribeConfig,
    private readonly queues: TranscriptionQueues,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.queues.kind !== 'in-memory') return;
    const dir = uploadDirOf(this.config);
    const names = await readdir(dir).catch(() => [] as string[]);
    const stale = names.filter((n) => n.endsWith('.upload'));
    await Promise.all(stale.map((n) => unlink(join(dir, n)).catch(() => undefined)));
    if (stale.length) this.logger.log(`removed ${stale.length} upload(s) left by a previous run`);
  }
}
