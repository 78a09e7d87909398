import { Injectable } from '@nestjs/common';
import type { Principal } from '../access/principal';
import type { Conversation } from '../conversations/conversation';
import { ConversationsService } from '../conversations/conversations.service';
import { ContactsService, type Contact } from './contacts.service';

/** How many of a contact's conversations GET /api/v1/contacts/{id} lists (newest activity first). */
export const CONTACT_CONVERSATIONS_SHOWN = 50;

/**
 * A contact of the caller's account with its latest conversations the caller sees (an agent: those of
 * its channels); 404 `CONTACT_NOT_FOUND` when it is not the account's.
 */
@Injectable()
export class ContactWithConversations {
  constructor(
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
  ) {}

  async execute(p: Principal, contactId: string): Promise<{ contact: Contact; conversations: Conversation[] }> {
    const contact = await this.contacts.get(p.accountId, contactId);
    const conversations = await this.conversations.ofContact(p, contactId, CONTACT_CONVERSATIONS_SHOWN);
    return { contact, conversations };
  }
}
