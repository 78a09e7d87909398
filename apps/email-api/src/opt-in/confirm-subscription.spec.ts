import type { Contact } from '../contacts/contact';
import type { ContactsService } from '../contacts/contacts.service';
import { ConfirmSubscription } from './confirm-subscription';
import type { OptInLinks } from './opt-in-links';
import type { OptInTokenCheck } from './opt-in-tokens';

const base: Contact = { id: 'cnt_1', email: 'a@x.io', subscribed: false, optIn: 'pending', confirmedAt: null, data: {}, createdAt: new Date(0), updatedAt: new Date(0) };

function setup(stored: Contact | null, check: OptInTokenCheck['status'], confirmResult?: { contact: Contact; confirmed: boolean } | null) {
  const confirmed: string[] = [];
  const links = {
    contactOf: (token: string) => (token.startsWith('cnt_') ? 'cnt_1' : null),
    verify: (_t: string, projectId: string) => (projectId === 'p1' ? ({ status: check, contactId: 'cnt_1' } as OptInTokenCheck) : { status: 'invalid' }),
  };
  const contacts = {
    findAnyById: async () => (stored ? { ...stored, projectId: 'p1' } : null),
    confirmOptIn: async (projectId: string, id: string) => (confirmed.push(`${projectId} ${id}`), confirmResult ?? null),
  };
  return { useCase: new ConfirmSubscription(links as unknown as OptInLinks, contacts as unknown as ContactsService), confirmed };
}

describe('ConfirmSubscription', () => {
  it('inspect never confirms: pending, subscribed, or invalid for an unsubscribed contact', async () => {
    const pending = setup(base, 'valid');
    expect(await pending.useCase.inspect('cnt_1.x.y')).toEqual({ state: 'pending', email: 'a@x.io' });
    expect(pending.confirmed).toEqual([]);
    expect(await setup({ ...base, subscribed: true, optIn: 'confirmed' }, 'valid').useCase.inspect('cnt_1.x.y')).toEqual({ state: 'subscribed', email: 'a@x.io' });
    expect(await setup({ ...base, optIn: null }, 'valid').useCase.inspect('cnt_1.x.y')).toEqual({ state: 'invalid' });
  });

  it('execute confirms a pending contact of a valid link, once', async () => {
    const { useCase, confirmed } = setup(base, 'valid', { contact: { ...base, subscribed: true, optIn: 'confirmed' }, confirmed: true });
    expect(await useCase.execute('cnt_1.x.y')).toEqual({ state: 'confirmed', email: 'a@x.io' });
    expect(confirmed).toEqual(['p1 cnt_1']);
    const again = setup(base, 'valid', { contact: { ...base, subscribed: true, optIn: 'confirmed' }, confirmed: false });
    expect(await again.useCase.execute('cnt_1.x.y')).toEqual({ state: 'subscribed', email: 'a@x.io' });
  });

  it('refuses malformed, forged and expired links and deleted contacts without confirming', async () => {
    for (const [stored, check, token, state] of [
      [base, 'valid', 'garbage', 'invalid'],
      [base, 'invalid', 'cnt_1.x.y', 'invalid'],
      [base, 'expired', 'cnt_1.x.y', 'expired'],
      [null, 'valid', 'cnt_1.x.y', 'invalid'],
    ] as const) {
      const { useCase, confirmed } = setup(stored, check);
      expect((await useCase.execute(token)).state).toBe(state);
      expect(confirmed).toEqual([]);
    }
    // an expired link of a contact that confirmed through a newer one says so
    expect((await setup({ ...base, subscribed: true, optIn: 'confirmed' }, 'expired').useCase.execute('cnt_1.x.y')).state).toBe('subscribed');
  });
});
