import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { ContactsService } from '../contacts/contacts.service';
import { MailEventsService } from '../mail-events/mail-events.service';
import { UnsubscribeLinks } from './unsubscribe-links';

@Injectable()
export class UnsubscribeService {
  constructor(
    private readonly transactions: Transactions,
    private readonly links: UnsubscribeLinks,
    private readonly contacts: ContactsService,
    private readonly mailEvents: MailEventsService,
  ) {}

  /** The contact a link points to (for the confirmation page). */
  async contactOf(token: string): Promise<{ id: string; email: string; subscribed: boolean; projectId: string }> {
    const id = this.links.verify(token);
    const contact = id ? await this.contacts.findAnyById(id) : null;
    if (!contact) {
      throw new ApiError(404, 'INVALID_UNSUBSCRIBE_LINK', 'This unsubscribe link is not valid (or the contact no longer exists)', {
        suggestion: 'Use the link of a recent email; if the address still receives mail, reply to the sender.',
      });
    }
    return contact;
  }

  /**
   * Unsubscribes the contact of the link (idempotent): when it was subscribed, records the mail
   * event `unsubscribe` — which puts the address on the project's suppression list (`unsubscribe`,
   * source `unsubscribe-link`: no marketing mail, even after the contact is deleted and imported
   * again) — and `contact.unsubscribed`.
   */
  async unsubscribe(token: string, correlationId?: string): Promise<{ email: string; changed: boolean }> {
    const contact = await this.contactOf(token);
    const changed = await this.transactions.transaction(async () => {
      if (contact.subscribed) {
        await this.mailEvents.record({ type: 'unsubscribe', projectId: contact.projectId, contactId: contact.id, recipient: contact.email, idempotencyKey: `unsubscribe-link:${contact.id}:${Date.now()}`, source: 'unsubscribe-link' });
      }
      return (await this.contacts.setSubscribed(contact.projectId, [contact.id], false, correlationId)).length > 0;
    });
    return { email: contact.email, changed };
  }
}
