import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { MailIn } from './mail-in';

/**
 * The mail-in worker: every five seconds it claims the email channels whose mailbox is due
 * (`CONVERSATION_IMAP_POLL_SECONDS` after its last poll) and polls them. Replicas share the work
 * through `FOR UPDATE SKIP LOCKED` and a lease on the channel row: a mailbox is polled by one at a time.
 */
@Injectable()
export class MailInWorker extends PollingWorker {
  protected readonly logger = new Logger(MailInWorker.name);

  constructor(private readonly mailIn: MailIn) {
    super(5_000);
  }

  protected tick(): Promise<number> {
    return this.mailIn.pollDue();
  }
}
