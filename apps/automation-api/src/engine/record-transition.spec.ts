import { NOW, aRun, anAccount, anAutomation, fake, fakeClock, fakeTransactions } from '../../test/engine-fakes';
import type { ContactsService } from '../contacts/contacts.service';
import type { EventsService } from '../events/events.service';
import type { RunsService } from '../runs/runs.service';
import type { AnnounceRun } from './announce-run';
import { StaleRunError } from './engine-errors';
import type { InboundService } from './inbound.service';
import { RecordTransition } from './record-transition';

function setup(updated = true) {
  const transactions = fakeTransactions();
  const order: string[] = [];
  const runs = fake<RunsService>({ update: jest.fn(async () => (order.push('run'), updated)) });
  const contacts = fake<ContactsService>({ setEmail: jest.fn(async () => void order.push('email')) });
  const events = fake<EventsService>({ record: jest.fn(async (_a: number, e: { kind: string }) => void order.push(`event:${e.kind}`)) });
  const inbound = fake<InboundService>({ insert: jest.fn(async () => (order.push('follow_up'), [])) });
  const announce = fake<AnnounceRun>({ execute: jest.fn(async (_a: unknown, _b: unknown, _r: unknown, kind: string) => void order.push(`announce:${kind}`)) });
  return { transactions, order, runs, inbound, record: new RecordTransition(transactions as never, runs, contacts, events, inbound, announce, fakeClock() as never) };
}

describe('RecordTransition', () => {
  it('stores run, email, Events, announcements and the reminder in one transaction, the run first', async () => {
    const s = setup();
    await s.record.execute(anAccount(), anAutomation({ follow_up_minutes: 30 }), aRun(), {
      state: 'link_sent',
      stamps: ['email_captured_at', 'link_sent_at'],
      messages: [],
      effects: ['email_captured', 'link_sent', 'schedule_follow_up'],
      email: 'jane@example.com',
      notes: ['ignored'],
    });
    expect(s.transactions.opened).toBe(1);
    expect(s.order).toEqual(['run', 'email', 'event:email_captured', 'event:link_sent', 'announce:email_captured', 'announce:link_sent', 'follow_up']);
    const followUpAt = new Date(NOW.getTime() + 30 * 60_000);
    expect(s.runs.update).toHaveBeenCalledWith(expect.objectContaining({ id: '42' }), { state: 'link_sent', stamps: ['email_captured_at', 'link_sent_at'], email: 'jane@example.com', follow_up_due_at: followUpAt, error: undefined }, NOW);
    expect(s.inbound.insert).toHaveBeenCalledWith([expect.objectContaining({ dedup_key: 'follow_up:42', kind: 'follow_up', not_before: followUpAt })]);
  });

  it('stamps already set keep their first time and get no second Event', async () => {
    const s = setup();
    await s.record.execute(anAccount(), anAutomation(), aRun({ dm_sent_at: NOW }), { state: 'awaiting_tap', stamps: ['dm_sent_at'], messages: [], effects: [], notes: [] });
    expect(s.runs.update).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ stamps: [] }), NOW);
    expect(s.order).toEqual(['run']);
  });

  it('a run moved by another worker meanwhile (optimistic lock): StaleRunError, nothing else written', async () => {
    const s = setup(false);
    await expect(s.record.execute(anAccount(), anAutomation(), aRun(), { state: 'dm_sent', stamps: ['dm_sent_at'], messages: [], effects: ['link_sent'], notes: [] })).rejects.toBeInstanceOf(StaleRunError);
    expect(s.order).toEqual(['run']);
  });
});
