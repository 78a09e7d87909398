import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { ContactsService } from '../contacts/contacts.service';
import { UnsubscribeLinks } from './unsubscribe-links';

@Injectable()
export class UnsubscribeService {
  constructor(
    private readonly transactions: Transactions,
    private readonly links: UnsubscribeLinks,
    private readonly contacts: ContactsService,
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

  /** Unsubscribes the contact of the link (idempotent); records `contact.unsubscribed` when it changed. */
  async unsubscribe(token: string, correlationId?: string): Promise<{ email: string; changed: boolean }> {
    const contact = await this.contactOf(token);
    const changed = await this.transactions.transaction(async () => (await this.contacts.setSubscribed(contact.projectId, [contact.id], false, correlationId)).length > 0);
    return { email: contact.email, changed };
  }
}
