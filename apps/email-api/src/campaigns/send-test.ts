import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { ContactsService } from '../contacts/contacts.service';
import { DomainsService } from '../domains/domains.service';
import { MailQueue } from '../emails/mail-queue.service';
import { variantContent, variantIndex, VARIANT_IDS } from './ab-test';
import { CampaignMail } from './campaign-mail';
import { CampaignsService } from './campaigns.service';

/**
 * POST /campaigns/:id/test: the campaign to one address now, subject prefixed `[Test]`, rendered
 * with that address's contact; not counted in its stats. An address without a contact gets one
 * (unsubscribed, as `/v1/send` records its recipients), so that the mail's unsubscribe link names a
 * real contact and works; the preview itself is sent as transactional mail, whatever the
 * subscription. `variant` (an A/B test's A–D) sends that variant's subject and body instead.
 */
@Injectable()
export class SendCampaignTest {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsService,
    private readonly domains: DomainsService,
    private readonly contacts: ContactsService,
    private readonly mail: CampaignMail,
    private readonly queue: MailQueue,
  ) {}

  async execute(projectId: string, id: string, email: string, variant?: string): Promise<{ email: string; emailId: string; status: string }> {
    const sent = await this.transactions.transaction(async () => {
      const row = await this.campaigns.row(projectId, id);
      let content = { subject: row.subject, body: row.body };
      if (variant !== undefined) {
        const index = variantIndex(variant);
        const variants = row.ab_test?.variants ?? [];
        if (index < 0 || index >= variants.length) {
          throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
            errors: [{ field: 'variant', message: variants.length ? `this test has the variants ${VARIANT_IDS.slice(0, variants.length).join(', ')}` : 'the campaign has no A/B test', code: 'invalid' }],
            suggestion: 'Leave `variant` out to send the campaign\'s own subject and body.',
          });
        }
        content = variantContent(row, variants[index]);
      }
      await this.domains.requireVerifiedSender(projectId, row.from_email);
      const to = email.trim().toLowerCase();
      const { contact } = await this.contacts.record(projectId, to, { defaultSubscribed: false });
      const rendered = this.mail.render({ id: row.id, body: content.body, subject: `[Test] ${content.subject}` }, contact);
      const queued = await this.queue.enqueue({
        projectId,
        contactId: contact.id,
        // The sender's own preview: sent whatever the address's subscription (a recorded contact is
        // unsubscribed), still with the campaign's unsubscribe headers.
        kind: 'TRANSACTIONAL',
        source: 'CAMPAIGN',
        to,
        from: row.from_email,
        fromName: null,
        replyTo: null,
        subject: rendered.subject,
        html: rendered.html,
        headers: rendered.headers,
        attachments: [],
        data: { campaignTest: id },
      });
      return { email: to, emailId: queued.id, status: queued.status };
    });
    this.queue.flush();
    return sent;
  }
}
