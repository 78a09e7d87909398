import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ContactsService } from '../contacts/contacts.service';
import { DomainsService } from '../domains/domains.service';
import { MailQueue } from '../emails/mail-queue.service';
import { CampaignMail } from './campaign-mail';
import { CampaignsService } from './campaigns.service';

/**
 * POST /campaigns/:id/test: the campaign to one address now, subject prefixed `[Test]`, rendered
 * with that address's contact when there is one (else a bare recipient); not counted in its stats.
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

  async execute(projectId: string, id: string, email: string): Promise<{ email: string; emailId: string; status: string }> {
    const sent = await this.transactions.transaction(async () => {
      const row = await this.campaigns.row(projectId, id);
      await this.domains.requireVerifiedSender(projectId, row.from_email);
      const to = email.trim().toLowerCase();
      const contact = (await this.contacts.findByEmail(projectId, to)) ?? { id: 'test', email: to, subscribed: true, data: {} };
      const rendered = this.mail.render({ ...row, subject: `[Test] ${row.subject}` }, contact);
      const queued = await this.queue.enqueue({
        projectId,
        contactId: contact.id === 'test' ? null : contact.id,
        kind: 'MARKETING',
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
