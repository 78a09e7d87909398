import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ProjectDirectory } from '../access/project-directory.service';
import { BillingUsage } from '../billing/billing-usage.service';
import { newId } from '../common/ids';
import { EmailApiConfig } from '../config';
import { TrackingLinks } from '../tracking/tracking-links';
import { categoryOfSource, NOT_SENT_NO_SMTP, type EmailRow, type NewEmail } from './email';
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
  /** The A/B test variant (0–3) of a test mail, recorded on it (`emails.ab_variant`). */
  variant?: number;
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
    private readonly projects: ProjectDirectory,
    private readonly tracking: TrackingLinks,
    private readonly transactions: Transactions,
    private readonly billing: BillingUsage,
  ) {}

  get smtpConfigured(): boolean {
    return this.smtp.configured;
  }

  /**
   * Mail of a project that tracks opens and clicks (and is not suppressed) gets tracked links and
   * the open pixel; the platform's own mail never does.
   *
   * Billing: a project's mail that is not SUPPRESSED takes one unit of its category (API:
   * transactional, CAMPAIGN: campaigns, WORKFLOW: workflows; SYSTEM never) in the transaction that
   * writes it; over the monthly cap nothing is written and `BillingLimitReachedError` (429
   * `BILLING_LIMIT_REACHED`) is thrown — a workflow step sending over the cap fails with it.
   */
  async enqueue(email: Omit<NewEmail, 'status' | 'statusReason'>, suppressedReason?: string): Promise<EmailRow> {
    const status = suppressedReason ? 'SUPPRESSED' : this.smtp.configured ? 'QUEUED' : 'STORED';
    const reason = suppressedReason ?? (status === 'STORED' ? NOT_SENT_NO_SMTP : null);
    let tracked: Partial<Pick<NewEmail, 'id' | 'html' | 'links'>> = {};
    if (!suppressedReason && email.projectId && email.kind !== 'SYSTEM' && (await this.projects.trackingEnabled(email.projectId))) {
      const id = email.id ?? newId('eml');
      tracked = { id, ...this.tracking.apply(id, email.html) };
    }
    const category = !suppressedReason && email.projectId ? categoryOfSource(email.source) : null;
    if (!category) return this.emails.insert({ ...email, ...tracked, status, statusReason: reason });
    return this.transactions.transaction(async () => {
      await this.billing.consume(email.projectId!, category);
      return this.emails.insert({ ...email, ...tracked, status, statusReason: reason });
    });
  }

  /**
   * One batch of a campaign's mails, in the open transaction: QUEUED on consecutive slots of the
   * project's clock (its send rate, else EMAIL_SEND_RATE mails a second, shared by every replica: the
   * campaign's pacing; the send worker's token bucket enforces the rate for all mail), or STORED
   * without SMTP_URL. A contact that already has this campaign's mail is skipped, so a batch run
   * twice sends nothing twice. Answers how many mails were written. The mails written take as many
   * units of the project's `campaigns` cap in the same transaction (BillingLimitReachedError when
   * they do not fit: the batch writes nothing).
   */
  async enqueueCampaignBatch(projectId: string, campaign: { id: string; templateId: string | null }, mails: CampaignMailItem[]): Promise<number> {
    const queued = this.smtp.configured;
    const slots = queued ? await this.emails.reserveSlots(projectId, mails.length || 1, this.config.EMAIL_SEND_RATE) : { start: new Date(), perSecond: this.config.EMAIL_SEND_RATE };
    const start = slots.start;
    const step = 1000 / slots.perSecond;
    const track = mails.length > 0 && (await this.projects.trackingEnabled(projectId));
    return this.transactions.transaction(async () => {
      const written = await this.emails.insertCampaignBatch(
        projectId,
        campaign.id,
        campaign.templateId,
        queued ? 'QUEUED' : 'STORED',
        queued ? null : NOT_SENT_NO_SMTP,
        mails.map((m, i) => {
          const sendAt = new Date(start.getTime() + i * step);
          if (!track) return { ...m, sendAt };
          const id = newId('eml');
          return { ...m, id, sendAt, ...this.tracking.apply(id, m.html) };
        }),
      );
      await this.billing.consume(projectId, 'campaigns', written);
      return written;
    });
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
