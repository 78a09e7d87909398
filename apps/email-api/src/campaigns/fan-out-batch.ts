import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { EmailCampaignBatch, Outbox } from '@platform/messaging';
import { MailQueue } from '../emails/mail-queue.service';
import { SegmentsService } from '../segments/segments.service';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { audienceOf } from './campaign';
import { CampaignMail } from './campaign-mail';
import { CampaignsRepository } from './campaigns.repository';

/** Recipients written per fan-out message. */
export const FANOUT_BATCH = 500;

/**
 * One fan-out batch (a RabbitMQ message, inside its inbox transaction): the next recipients after
 * the campaign's cursor become queued mails on the project's throttle clock; the next message is
 * enqueued in the same transaction. Safe to run twice: the cursor is on the row (locked) and a
 * contact never gets a second mail of a campaign (unique index). Suppressed addresses get none.
 */
@Injectable()
export class FanOutCampaignBatch {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsRepository,
    private readonly segments: SegmentsService,
    private readonly mail: CampaignMail,
    private readonly queue: MailQueue,
    private readonly outbox: Outbox,
    private readonly suppressions: SuppressionsService,
  ) {}

  async execute(campaignId: string, batch: number): Promise<void> {
    await this.transactions.transaction(async () => {
      const row = await this.campaigns.lockForFanout(campaignId);
      if (!row || row.status !== 'SENDING' || row.fanout_done) return;
      const contacts = await this.segments.recipients(row.project_id, audienceOf(row), row.fanout_after, FANOUT_BATCH);
      // Suppressed addresses are skipped (no mail written; the cursor still moves past them).
      const suppressed = await this.suppressions.blocking(row.project_id, contacts.map((c) => c.email), 'MARKETING');
      const written = await this.queue.enqueueCampaignBatch(
        row.project_id,
        { id: row.id, templateId: row.template_id },
        contacts.filter((c) => !suppressed.has(c.email.toLowerCase())).map((c) => ({ contactId: c.id, to: c.email, from: row.from_email, ...this.mail.render(row, c) })),
      );
      const done = contacts.length < FANOUT_BATCH;
      await this.campaigns.advance(row.id, contacts.length ? contacts[contacts.length - 1].id : null, written, done);
      if (!done) await this.outbox.enqueue(EmailCampaignBatch, { projectId: row.project_id, campaignId: row.id, batch: batch + 1 });
    });
    this.queue.flush();
  }
}
