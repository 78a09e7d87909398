import type { Transactions } from '@platform/database';
import type { ContactsService } from '../contacts/contacts.service';
import type { MailQueue } from '../emails/mail-queue.service';
import type { Suppression } from '../suppressions/suppression';
import type { SuppressionsService } from '../suppressions/suppressions.service';
import type { ConfirmationEmail, ConfirmationMails } from './confirmation-mails';
import { SendConfirmations } from './send-confirmations';

const contact = (id: string, email: string, pending = true) => ({
  id,
  email,
  projectId: 'p1',
  pending,
  subscribed: false,
  optIn: pending ? ('pending' as const) : null,
  confirmedAt: null,
  data: {},
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

function setup(due: ReturnType<typeof contact>[], suppressed: Record<string, Suppression> = {}) {
  const log: string[] = [];
  const transactions = { transaction: async <T>(fn: () => Promise<T>) => (log.push('begin'), fn().finally(() => log.push('commit'))) };
  const contacts = { takeDueConfirmations: async (limit: number) => (log.push(`take ${limit}`), due) };
  const mails = { build: async (projectId: string, c: { id: string; email: string }) => ({ projectId, contactId: c.id, to: c.email, kind: 'SYSTEM' }) as unknown as ConfirmationEmail };
  const suppressions = { blocking: async (_p: string, emails: string[]) => new Map(emails.filter((e) => suppressed[e]).map((e) => [e, suppressed[e]])) };
  const enqueued: Array<{ to: string; reason?: string }> = [];
  const queue = {
    enqueue: async (mail: ConfirmationEmail, reason?: string) => (log.push(`enqueue ${mail.to}`), enqueued.push({ to: mail.to, reason })),
    flush: () => log.push('flush'),
  };
  const useCase = new SendConfirmations(
    transactions as unknown as Transactions,
    contacts as unknown as ContactsService,
    mails as unknown as ConfirmationMails,
    suppressions as unknown as SuppressionsService,
    queue as unknown as MailQueue,
  );
  return { useCase, log, enqueued };
}

describe('SendConfirmations', () => {
  it('takes the due contacts and queues their mails in one transaction, then wakes the sender', async () => {
    const { useCase, log, enqueued } = setup([contact('c1', 'a@x.io'), contact('c2', 'b@x.io')]);
    expect(await useCase.execute(10)).toBe(2);
    expect(log).toEqual(['begin', 'take 10', 'enqueue a@x.io', 'enqueue b@x.io', 'commit', 'flush']);
    expect(enqueued).toEqual([{ to: 'a@x.io', reason: undefined }, { to: 'b@x.io', reason: undefined }]);
  });

  it('skips contacts no longer pending and records suppressed addresses as SUPPRESSED', async () => {
    const bounce: Suppression = { email: 'b@x.io', reason: 'hard_bounce', source: 'smtp', createdAt: new Date(0) };
    const { useCase, enqueued } = setup([contact('c1', 'a@x.io', false), contact('c2', 'b@x.io')], { 'b@x.io': bounce });
    expect(await useCase.execute()).toBe(2);
    expect(enqueued).toEqual([{ to: 'b@x.io', reason: expect.stringContaining('hard_bounce') }]);
  });

  it('does nothing (and wakes nobody) when nothing is due', async () => {
    const { useCase, log } = setup([]);
    expect(await useCase.execute()).toBe(0);
    expect(log).not.toContain('flush');
  });
});
