import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { IdempotencyRepository } from './idempotency.repository';

/** Deletes idempotency keys older than 24 hours, hourly (any replica; the DELETE is idempotent). */
@Injectable()
export class IdempotencyPruner extends PollingWorker {
  protected readonly logger = new Logger('IdempotencyPruner');

  constructor(private readonly keys: IdempotencyRepository) {
    super(60 * 60 * 1000);
  }

  protected async tick(): Promise<number> {
    await this.keys.prune();
    return 0;
  }
}
