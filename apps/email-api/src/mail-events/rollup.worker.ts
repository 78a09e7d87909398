import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { MailEventsRepository } from './mail-events.repository';

/** Queued counts moved per statement. */
const ROLLUP_BATCH = 20_000;

/**
 * Moves the counts the event statements queue (`mail_event_rollup_queue`) into the quarter-hour
 * rollups every WORKER_POLL_MS, on every replica (each statement takes rows no other one holds:
 * FOR UPDATE SKIP LOCKED, and deletes them in the statement that adds them up). The time series
 * trails the events by about one poll.
 */
@Injectable()
export class RollupWorker extends PollingWorker {
  protected readonly logger = new Logger('RollupWorker');

  constructor(
    private readonly events: MailEventsRepository,
    config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  protected tick(): Promise<number> {
    return this.events.drainRollupQueue(ROLLUP_BATCH);
  }
}
