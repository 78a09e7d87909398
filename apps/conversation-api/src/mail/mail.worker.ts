import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { MailerService } from './mailer.service';

/** Sends queued mails (woken when one is queued, else every five seconds); replicas never send one twice (claimDue). */
@Injectable()
export class MailWorker extends PollingWorker {
  protected readonly logger = new Logger(MailWorker.name);

  constructor(private readonly mailer: MailerService) {
    super(5_000);
  }

  protected override enabled(): boolean {
    return this.mailer.mode === 'queued';
  }

  protected tick(): Promise<number> {
    return this.mailer.sendDue();
  }
}
