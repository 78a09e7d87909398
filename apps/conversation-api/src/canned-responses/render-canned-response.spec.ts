import { ApiError } from '@platform/errors';
import type { AccountsService } from '../accounts/accounts.service';
import type { Principal } from '../access/principal';
import type { ContactsService } from '../contacts/contacts.service';
import type { ConversationsService } from '../conversations/conversations.service';
import { CannedResponsesService } from './canned-responses.service';
import type { CannedResponsesRepository } from './canned-responses.repository';
import { RenderCannedResponse } from './render-canned-response';

const p = { accountId: 'acc-1', userId: 'u-1', name: 'Alice Agent', email: 'alice@x.test' } as Principal;

function setup(opts: { seen?: boolean } = {}) {
  const repo = { find: jest.fn(async (_a: string, id: string) => (id === 'c-1' ? { id, accountId: 'acc-1', shortCode: 'hi', content: 'Hi {{contact.first_name}} ({{contact.custom_attribute.plan}}), {{agent.name}} on #{{conversation.id}} at {{account.name}}' } : null)) };
  const conversations = {
    get: jest.fn(async () => {
      if (opts.seen === false) throw new ApiError(404, 'CONVERSATION_NOT_FOUND', 'Conversation not found');
      return { id: 'conv-1', contactId: 'contact-1', displayId: 12 };
    }),
  };
  const contacts = { get: jest.fn(async () => ({ id: 'contact-1', name: 'Kim Lee', email: null, phone: null, customAttributes: { plan: 'pro' } })) };
  const accounts = { settings: jest.fn(async () => ({ name: 'Acme' })) };
  const useCase = new RenderCannedResponse(
    new CannedResponsesService(repo as unknown as CannedResponsesRepository),
    conversations as unknown as ConversationsService,
    contacts as unknown as ContactsService,
    accounts as unknown as AccountsService,
  );
  return { useCase, conversations };
}

describe('RenderCannedResponse', () => {
  it('fills in the conversation’s contact, the caller as agent, the number and the account', async () => {
    const t = setup();
    expect(await t.useCase.execute(p, 'c-1', 'conv-1')).toEqual({ content: 'Hi Kim (pro), Alice Agent on #12 at Acme' });
    expect(t.conversations.get).toHaveBeenCalledWith(p, 'conv-1');
  });

  it('answers 404 for an unknown canned response or a conversation the caller does not see', async () => {
    await expect(setup().useCase.execute(p, 'nope', 'conv-1')).rejects.toMatchObject({ code: 'CANNED_RESPONSE_NOT_FOUND' });
    await expect(setup({ seen: false }).useCase.execute(p, 'c-1', 'conv-1')).rejects.toMatchObject({ code: 'CONVERSATION_NOT_FOUND' });
  });
});
