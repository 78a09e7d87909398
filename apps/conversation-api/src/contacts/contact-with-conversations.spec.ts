import { ApiError } from '@platform/errors';
import type { Principal } from '../access/principal';
import type { ConversationsService } from '../conversations/conversations.service';
import { CONTACT_CONVERSATIONS_SHOWN, ContactWithConversations } from './contact-with-conversations';
import type { ContactsService } from './contacts.service';

describe('ContactWithConversations', () => {
  const contact = { id: 'c-1', accountId: 'acc-1', name: 'Ana' };
  const conversations = [{ id: 'conv-2' }, { id: 'conv-1' }];
  const caller = { accountId: 'acc-1', userId: 'u-1' } as Principal;

  function setup(get: () => Promise<unknown>) {
    const contacts = { get: jest.fn(get) };
    const convs = { ofContact: jest.fn(async () => conversations) };
    return { useCase: new ContactWithConversations(contacts as unknown as ContactsService, convs as unknown as ConversationsService), contacts, convs };
  }

  it("gives the account's contact with the latest 50 conversations the caller sees", async () => {
    const { useCase, contacts, convs } = setup(async () => contact);
    await expect(useCase.execute(caller, 'c-1')).resolves.toEqual({ contact, conversations });
    expect(contacts.get).toHaveBeenCalledWith('acc-1', 'c-1');
    expect(convs.ofContact).toHaveBeenCalledWith(caller, 'c-1', CONTACT_CONVERSATIONS_SHOWN);
    expect(CONTACT_CONVERSATIONS_SHOWN).toBe(50);
  });

  it('answers 404 CONTACT_NOT_FOUND for a contact of another account without reading conversations', async () => {
    const missing = new ApiError(404, 'CONTACT_NOT_FOUND', 'Contact not found');
    const { useCase, convs } = setup(() => Promise.reject(missing));
    await expect(useCase.execute(caller, 'c-9')).rejects.toBe(missing);
    expect(convs.ofContact).not.toHaveBeenCalled();
  });
});
