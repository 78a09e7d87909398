import { Injectable } from '@nestjs/common';
import { NOT_SENT_NO_SMTP, type EmailRow, type NewEmail } from './email';
import { EmailsRepository } from './emails.repository';
import { SendWorker } from './send.worker';
import { SmtpTransport } from './smtp.transport';

/**
 * Stores outgoing mail: QUEUED for the send worker when SMTP_URL is set, else STORED (kept in the
 * activity feed, not sent, with the reason). SUPPRESSED mail is recorded and never sent.
 */
@Injectable()
export class MailQueue {
  constructor(
    private readonly emails: EmailsRepository,
    private readonly smtp: SmtpTransport,
    private readonly worker: SendWorker,
  ) {}

  get smtpConfigured(): boolean {
    return this.smtp.configured;
  }

  async enqueue(email: Omit<NewEmail, 'status' | 'statusReason'>, suppressedReason?: string): Promise<EmailRow> {
    const status = suppressedReason ? 'SUPPRESSED' : this.smtp.configured ? 'QUEUED' : 'STORED';
    const reason = suppressedReason ?? (status === 'STORED' ? NOT_SENT_NO_SMTP : null);
    return this.emails.insert({ ...email, status, statusReason: reason });
  }

  /** Call after the enqueuing transaction committed: the local worker sends at once. */
  flush(): void {
    if (this.smtp.configured) this.worker.wake();
  }
}
