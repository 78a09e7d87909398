import { Injectable } from '@nestjs/common';
import type { ContactRow } from '../contacts/contact';
import { renderTemplate } from '../emails/render';
import { UnsubscribeLinks } from '../emails/unsubscribe-links';

/** One campaign mail for one contact: placeholders filled, RFC 8058 one-click unsubscribe headers. */
@Injectable()
export class CampaignMail {
  constructor(private readonly links: UnsubscribeLinks) {}

  render(campaign: { id: string; subject: string; body: string }, contact: Pick<ContactRow, 'id' | 'email' | 'subscribed' | 'data'>) {
    const unsubscribeUrl = this.links.url(contact.id);
    const data = contact.data ?? {};
    const vars = { ...data, data, email: contact.email, id: contact.id, subscribed: contact.subscribed, unsubscribeUrl, manageUrl: unsubscribeUrl };
    return {
      subject: renderTemplate(campaign.subject, vars, false),
      html: renderTemplate(campaign.body, vars, true),
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        Precedence: 'bulk',
        'X-Campaign-Id': campaign.id,
      },
    };
  }
}
