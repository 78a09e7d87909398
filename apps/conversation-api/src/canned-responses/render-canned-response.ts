import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { Principal } from '../access/principal';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationsService } from '../conversations/conversations.service';
import { CannedResponsesService } from './canned-responses.service';

/**
 * A canned response filled in for one conversation the caller sees (its inbox scope applies: 404
 * otherwise), as the agent would send it: the conversation's contact, the caller as `{{agent.*}}`,
 * the conversation's number and the account's name. Spans canned responses, conversations,
 * contacts and accounts; reads only.
 */
@Injectable()
export class RenderCannedResponse {
  constructor(
    private readonly canned: CannedResponsesService,
    private readonly conversations: ConversationsService,
    private readonly contacts: ContactsService,
    private readonly accounts: AccountsService,
  ) {}

  async execute(p: Principal, cannedId: string, conversationId: string): Promise<{ content: string }> {
    const canned = await this.canned.get(p.accountId, cannedId);
    const conversation = await this.conversations.get(p, conversationId);
    const contact = await this.contacts.get(p.accountId, conversation.contactId);
    const account = await this.accounts.settings(p.accountId);
    return {
      content: this.canned.render(canned, {
        contact: { name: contact.name, email: contact.email, phone: contact.phone, customAttributes: contact.customAttributes },
        agent: { name: p.name, email: p.email },
        conversation: { displayId: conversation.displayId },
        account: { name: account.name },
      }),
    };
  }
}
