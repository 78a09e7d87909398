import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { EmailCampaignBatch, Outbox } from '@platform/messaging';
import type { Contact } from '../contacts/contact';
import { MailQueue, type CampaignMailItem } from '../emails/mail-queue.service';
import { SegmentsService } from '../segments/segments.service';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { drawTestGroup, testGroupSize, variantContent, type SamplingState } from './ab-test';
import { audienceOf, type CampaignRow } from './campaign';
import { CampaignMail } from './campaign-mail';
import { CampaignsRepository } from './campaigns.repository';

/** Recipients written per fan-out message. */
export const FANOUT_BATCH = 500;

/**
 * One fan-out batch (a RabbitMQ message, inside its inbox transaction): the next recipients after
 * the campaign's cursor become queued mails on the project's throttle clock; the next message is
 * enqueued in the same transaction. Safe to run twice: the cursor is on the row (locked) and a
 * contact never gets a second mail of a campaign (unique index). Suppressed addresses get none.
 *
 * A campaign with an A/B test walks its audience twice. In the `testing` phase only the contacts
 * the test group draws get a mail, with their variant's subject and body (the drawing's state
 * moves with the cursor, so a batch run again draws the same contacts); in the `winner` phase
 * every contact without a mail of the campaign gets the winner's.
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
      const mailable = contacts.filter((c) => !suppressed.has(c.email.toLowerCase()));
      const { mails, sampling } = await this.mails(row, mailable);
      const written = await this.queue.enqueueCampaignBatch(row.project_id, { id: row.id, templateId: row.template_id }, mails);
      const done = contacts.length < FANOUT_BATCH;
      await this.campaigns.advance(row.id, contacts.length ? contacts[contacts.length - 1].id : null, written, done, sampling);
      if (!done) await this.outbox.enqueue(EmailCampaignBatch, { projectId: row.project_id, campaignId: row.id, batch: batch + 1 });
    });
    this.queue.flush();
  }

  /** The batch's mails by the campaign's phase (and, while testing, the drawing's state after them). */
  private async mails(row: CampaignRow, contacts: Contact[]): Promise<{ mails: CampaignMailItem[]; sampling?: SamplingState }> {
    const test = row.ab_test;
    const item = (c: Contact, content: { id: string; subject: string; body: string }, variant?: number): CampaignMailItem => ({
      contactId: c.id,
      to: c.email,
      from: row.from_email,
      ...this.mail.render(content, c),
      ...(variant === undefined ? {} : { variant }),
    });
    if (!test || !row.ab_phase) return { mails: contacts.map((c) => item(c, row)) };
    const contents = test.variants.map((v) => ({ id: row.id, ...variantContent(row, v) }));
    if (row.ab_phase === 'testing') {
      let state: SamplingState = { audience: row.ab_audience ?? 0, testSize: row.ab_test_size ?? 0, seen: row.ab_seen, selected: row.ab_selected };
      if (row.ab_audience === null) {
        // the first batch of the test: the group's size from the audience as it is now
        const audience = await this.segments.countRecipients(row.project_id, audienceOf(row));
        state = { audience, testSize: testGroupSize(audience, test.testShare, test.variants.length), seen: 0, selected: 0 };
      }
      const drawn = drawTestGroup(state, contacts.map((c) => c.id), row.id, test.variants.length);
      const byId = new Map(contacts.map((c) => [c.id, c]));
      return { mails: drawn.picks.map((p) => item(byId.get(p.contactId)!, contents[p.variant], p.variant)), sampling: drawn.state };
    }
    if (row.ab_phase !== 'winner' || row.ab_winner === null) return { mails: [] };
    // the winner to the rest: whoever has no mail of the campaign yet (the test group has one)
    const mailed = await this.campaigns.mailedContacts(row.id, contacts.map((c) => c.id));
    return { mails: contacts.filter((c) => !mailed.has(c.id)).map((c) => item(c, contents[row.ab_winner!])) };
  }
}
