import { NOW, aRun, anAccount, anAutomation, anItem, fake, fakeClock, fakeTransactions } from '../../test/engine-fakes';
import type { AutomationsService } from '../automations/automations.service';
import type { ContactsService } from '../contacts/contacts.service';
import type { RunsService } from '../runs/runs.service';
import type { AdvanceRun } from './advance-run';
import type { EventsService } from '../events/events.service';
import type { GraphService } from '../graph/graph.service';
import { ApplyInput } from './apply-input';
import type { InboundService } from './inbound.service';
import { LoadRun } from './load-run';
import { OptOut } from './opt-out';
import { ProcessMessage } from './process-message';
import { ReadProfile } from './read-profile';

const payload = { mid: 'mid-1', sender_id: 'person-1', text: 'guide' };

function setup(opts: { awaitingEmail?: ReturnType<typeof aRun> | null; awaitingTap?: ReturnType<typeof aRun> | null; run?: ReturnType<typeof aRun>; contact?: { username?: string | null; email?: string | null; opted_out_at?: Date | null } | null } = {}) {
  const transactions = fakeTransactions();
  const runs = fake<RunsService>({
    awaitingEmail: jest.fn(async () => opts.awaitingEmail ?? null),
    awaitingTapByText: jest.fn(async () => opts.awaitingTap ?? null),
    forTrigger: jest.fn(async () => null),
    hasRun: jest.fn(async () => false),
    insert: jest.fn(async () => aRun({ id: '42' })),
    endForPerson: jest.fn(async () => [{ id: '55', automation_id: 7 }]),
    find: jest.fn(async () => opts.run ?? aRun({ trigger: 'dm', comment_id: null, message_id: 'mid-1', username: null })),
    setUsername: jest.fn(),
  });
  const automations = fake<AutomationsService>({ live: jest.fn(async () => [anAutomation({ trigger: 'dm' })]), findById: jest.fn(async () => anAutomation({ trigger: 'dm' })) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => (opts.contact === undefined ? null : opts.contact)), touch: jest.fn(), tag: jest.fn(), setFollows: jest.fn(), setOptedOut: jest.fn() });
  const events = fake<EventsService>({ record: jest.fn() });
  const inbound = fake<InboundService>({ markApplied: jest.fn() });
  // The steps are real over faked services: the test sees the statements the flow makes.
  const input = new ApplyInput(runs, contacts, events, inbound, fakeClock() as never, fake({ runRefusal: jest.fn(async () => null) }) as never);
  const graph = fake<GraphService>({ client: jest.fn(() => ({ getUserProfile: jest.fn(async () => ({ username: 'jane' })) })) });
  const profiles = new ReadProfile(graph, contacts, runs);
  const advance = fake<AdvanceRun>({ execute: jest.fn() });
  const optOut = new OptOut(contacts, runs, events, fakeClock() as never, { AUTOMATION_STOP_KEYWORDS: 'stop,unsubscribe', AUTOMATION_START_KEYWORDS: 'start' } as never);
  return {
    events,
    transactions,
    runs,
    inbound,
    contacts,
    automations,
    advance,
    process: new ProcessMessage(transactions as never, input, automations, new LoadRun(runs, automations, contacts), profiles, advance, fakeClock() as never, optOut),
  };
}

describe('ProcessMessage', () => {
  it('a matching DM starts a run in one transaction, the handle is read from the profile, and the run starts', async () => {
    const s = setup();
    await s.process.execute(anItem({ kind: 'message', payload }), anAccount());
    expect(s.transactions.opened).toBe(1);
    expect(s.contacts.touch).toHaveBeenCalledWith(1, 'person-1', null, 'message', NOW);
    expect(s.automations.live).toHaveBeenCalledWith(1, 'dm');
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ trigger: 'dm', message_id: 'mid-1', comment_id: null, username: null }));
    expect(s.inbound.markApplied).toHaveBeenCalledWith('100', '42');
    expect(s.runs.setUsername).toHaveBeenCalledWith('42', 'jane');
    expect(s.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.objectContaining({ username: 'jane' }), expect.anything(), { type: 'start', answeredByOther: false, knownEmail: null });
  });

  it('STOP as the whole DM opts the person out: their runs end, Events, no matching, nothing moves', async () => {
    const waiting = aRun({ id: '77', state: 'awaiting_email', trigger: 'dm', comment_id: null, message_id: 'mid-0' });
    const s = setup({ awaitingEmail: waiting, contact: { username: 'jane' } });
    await s.process.execute(anItem({ kind: 'message', payload: { ...payload, text: ' Stop! ' } }), anAccount());
    expect(s.contacts.setOptedOut).toHaveBeenCalledWith(1, 'person-1', NOW);
    expect(s.runs.endForPerson).toHaveBeenCalledWith(1, 'person-1', 'stopped_by_person');
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'skipped', run_id: '55', automation_id: 7 }));
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'opted_out', username: 'jane', ref: 'mid-1' }));
    expect(s.inbound.markApplied).toHaveBeenCalledWith('100', null);
    expect(s.runs.awaitingEmail).not.toHaveBeenCalled();
    expect(s.automations.live).not.toHaveBeenCalled();
    expect(s.advance.execute).not.toHaveBeenCalled();
  });

  it('START undoes a STOP; a sentence containing "stop" is an ordinary message', async () => {
    const s = setup({ contact: { username: 'jane', opted_out_at: NOW } });
    await s.process.execute(anItem({ kind: 'message', payload: { ...payload, text: 'START' } }), anAccount());
    expect(s.contacts.setOptedOut).toHaveBeenCalledWith(1, 'person-1', null);
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'opted_in' }));

    const t = setup();
    await t.process.execute(anItem({ kind: 'message', payload: { ...payload, text: 'stop sending, guide received' } }), anAccount());
    expect(t.contacts.setOptedOut).not.toHaveBeenCalled();
    expect(t.automations.live).toHaveBeenCalledWith(1, 'dm');
  });

  it('no run starts for a person who opted out: a skipped run (opted_out) and an Event', async () => {
    const s = setup({ contact: { username: 'jane', opted_out_at: NOW } });
    await s.process.execute(anItem({ kind: 'message', payload }), anAccount());
    expect(s.runs.insert).toHaveBeenCalledTimes(1);
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ state: 'skipped', error: 'opted_out' }));
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'skipped', text: 'opted_out: this person sent STOP' }));
    expect(s.advance.execute).not.toHaveBeenCalled();
  });

  it('a text goes to the run waiting for an email before any matching', async () => {
    const waiting = aRun({ id: '77', state: 'awaiting_email', trigger: 'dm', comment_id: null, message_id: 'mid-0' });
    const s = setup({ awaitingEmail: waiting, run: waiting });
    await s.process.execute(anItem({ kind: 'message', payload: { ...payload, text: 'jane@example.com' } }), anAccount());
    expect(s.inbound.markApplied).toHaveBeenCalledWith('100', '77');
    expect(s.automations.live).not.toHaveBeenCalled();
    expect(s.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), waiting, expect.anything(), { type: 'text', text: 'jane@example.com' });
  });

  it('a text to a run whose button went out as text is the tap', async () => {
    const waiting = aRun({ id: '78', state: 'awaiting_tap', text_fallback: true, message_id: 'mid-0' });
    const s = setup({ awaitingTap: waiting, run: waiting, contact: { email: 'known@example.com' } });
    await s.process.execute(anItem({ kind: 'message', payload: { ...payload, text: 'Send link' } }), anAccount());
    expect(s.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), waiting, expect.anything(), { type: 'tap', knownEmail: 'known@example.com', now: NOW });
  });

  it('a story reply matches the story_reply automations and never counts as a tap', async () => {
    const s = setup();
    await s.process.execute(anItem({ kind: 'story_reply', payload: { ...payload, story_id: 'story-1' } }), anAccount());
    expect(s.runs.awaitingTapByText).not.toHaveBeenCalled();
    expect(s.automations.live).toHaveBeenCalledWith(1, 'story_reply');
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ trigger: 'story_reply', media_id: 'story-1' }));
  });

  it('the handle of a person the contacts know is taken from there when the run starts', async () => {
    const s = setup({ contact: { username: 'known_jane' } });
    await s.process.execute(anItem({ kind: 'message', payload }), anAccount());
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ username: 'known_jane' }));
  });
});
