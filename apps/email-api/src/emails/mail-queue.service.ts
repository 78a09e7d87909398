import { Injectable } from '@nestjs/common';
import { EmailApiConfig } from '../config';
import { NOT_SENT_NO_SMTP, type EmailRow, type NewEmail } from './email';
import { EmailsRepository } from './emails.repository';
import { SendWorker } from './send.worker';
import { SmtpTransport } from './smtp.transport';

/** One campaign mail for one recipient, rendered. */
export interface CampaignMailItem {
  contactId: string;
  to: string;
  from: string;
  subject: string;
  html: string;
  headers: Record<string, string>;
}

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
    private readonly config: EmailApiConfig,
  ) {}

  get smtpConfigured(): boolean {
    return this.smtp.configured;
  }

  async enqueue(email: Omit<NewEmail, 'status' | 'statusReason'>, suppressedReason?: string): Promise<EmailRow> {
    const status = suppressedReason ? 'SUPPRESSED' : this.smtp.configured ? 'QUEUED' : 'STORED';
    const reason = suppressedReason ?? (status === 'STORED' ? NOT_SENT_NO_SMTP : null);
    return this.emails.insert({ ...email, status, statusReason: reason });
  }

  /**
   * One batch of a campaign's mails, in the open transaction: QUEUED on consecutive slots of the
   * project's throttle clock (EMAIL_SEND_RATE mails a second, shared by every replica), or STORED
   * without SMTP_URL. A contact that already has this campaign's mail is skipped, so a batch run
   * twice sends nothing twice. Answers how many mails were written.
   */
  async enqueueCampaignBatch(projectId: string, campaign: { id: string; templateId: string | null }, mails: CampaignMailItem[]): Promise<number> {
    const perSecond = this.config.EMAIL_SEND_RATE;
    const queued = this.smtp.configured;
    const start = queued ? await this.emails.reserveSlots(projectId, mails.length || 1, perSecond) : new Date();
    const step = 1000 / perSecond;
    return this.emails.insertCampaignBatch(
      projectId,
      campaign.id,
      campaign.templateId,
      queued ? 'QUEUED' : 'STORED',
      queued ? null : NOT_SENT_NO_SMTP,
      mails.map((m, i) => ({ ...m, sendAt: new Date(start.getTime() + i * step) })),
    );
  }

  /** A cancelled campaign's mails not yet handed to SMTP become CANCELLED with the reason; answers how many. */
  cancelQueuedOfCampaign(campaignId: string, reason: string): Promise<number> {
    return this.emails.cancelQueuedOfCampaign(campaignId, reason);
  }

  /** Call after the enqueuing transaction committed: the local worker sends at once. */
  flush(): void {
    if (this.smtp.configured) this.worker.wake();
  }
}
