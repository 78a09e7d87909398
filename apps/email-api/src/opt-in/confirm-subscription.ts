import { Injectable } from '@nestjs/common';
import { ContactsService } from '../contacts/contacts.service';
import { OptInLinks } from './opt-in-links';

/**
 * What a confirmation link finds: `pending` (the page offers the button), `confirmed` (this request
 * confirmed it), `subscribed` (already subscribed: confirmed before, or subscribed otherwise),
 * `expired` (a valid signature past its time), `invalid` (forged, malformed, the contact deleted,
 * or no longer pending: it unsubscribed since, and a new signup sends a new link).
 */
export type ConfirmationOutcome =
  | { state: 'pending' | 'confirmed' | 'subscribed'; email: string }
  | { state: 'expired'; email: string }
  | { state: 'invalid' };

/** The public confirmation page of double opt-in: checks a link and confirms the contact it names. */
@Injectable()
export class ConfirmSubscription {
  constructor(
    private readonly links: OptInLinks,
    private readonly contacts: ContactsService,
  ) {}

  /** The link's state without changing anything (GET: link scanners only look). */
  async inspect(token: string): Promise<ConfirmationOutcome> {
    const found = await this.contactOf(token);
    if (found.state !== 'valid') return found;
    const { contact } = found;
    if (contact.optIn === 'pending') return { state: 'pending', email: contact.email };
    return contact.subscribed ? { state: 'subscribed', email: contact.email } : { state: 'invalid' };
  }

  /** Confirms the pending contact of the link (POST); idempotent. */
  async execute(token: string, correlationId?: string): Promise<ConfirmationOutcome> {
    const found = await this.contactOf(token);
    if (found.state !== 'valid') return found;
    const result = await this.contacts.confirmOptIn(found.contact.projectId, found.contact.id, correlationId);
    if (!result) return { state: 'invalid' };
    if (result.confirmed) return { state: 'confirmed', email: result.contact.email };
    return result.contact.subscribed ? { state: 'subscribed', email: result.contact.email } : { state: 'invalid' };
  }

  private async contactOf(token: string) {
    const id = this.links.contactOf(token);
    const contact = id ? await this.contacts.findAnyById(id) : null;
    if (!contact) return { state: 'invalid' as const };
    const check = this.links.verify(token, contact.projectId);
    if (check.status === 'invalid') return { state: 'invalid' as const };
    if (check.status === 'expired') {
      // an expired link of a contact that confirmed meanwhile (through a newer link) still says so
      return contact.optIn === 'confirmed' ? { state: 'subscribed' as const, email: contact.email } : { state: 'expired' as const, email: contact.email };
    }
    return { state: 'valid' as const, contact };
  }
}
