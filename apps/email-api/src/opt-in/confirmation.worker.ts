import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { SendConfirmations } from './send-confirmations';

/** Queues due confirmation mails every WORKER_POLL_MS, off the request path of the signups that asked for them. */
@Injectable()
export class ConfirmationWorker extends PollingWorker {
  protected readonly logger = new Logger('ConfirmationWorker');

  constructor(
    private readonly confirmations: SendConfirmations,
    config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  protected tick(): Promise<number> {
    return this.confirmations.execute(50);
  }
}
