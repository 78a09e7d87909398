import { NOW, aRun, anAccount, anAutomation, anItem, fake, fakeClock } from '../../test/engine-fakes';
import type { BillingService } from '../billing/billing.service';
import type { ContactsService } from '../contacts/contacts.service';
import type { EventsService } from '../events/events.service';
import type { RunsService } from '../runs/runs.service';
import { ApplyInput, type RunTrigger } from './apply-input';
import type { InboundService } from './inbound.service';

const trigger: RunTrigger = { igId: 'person-1', username: 'jane', trigger: 'comment', mediaId: 'media-1', commentId: 'comment-1', parentId: null, messageId: null, text: 'guide please' };

function setup(runs: Record<string, jest.Mock> = {}, refusal: string | null = null) {
  const r = fake<RunsService>({ forTrigger: jest.fn(async () => null), hasRun: jest.fn(async () => false), insert: jest.fn(async () => aRun({ id: '9' })), ...runs });
  const contacts = fake<ContactsService>({ touch: jest.fn(), tag: jest.fn(), find: jest.fn(async () => ({ username: 'known_jane' })) });
  const events = fake<EventsService>({ record: jest.fn() });
  const inbound = fake<InboundService>({ markApplied: jest.fn() });
  const billing = fake<BillingService>({ runRefusal: jest.fn(async () => refusal) });
  return { runs: r, contacts, events, inbound, input: new ApplyInput(r, contacts, events, inbound, fakeClock() as never, billing) };
}

describe('ApplyInput', () => {
  it('starts a run: inserted, the person tagged with the automation tags, a triggered Event', async () => {
    const s = setup();
    await expect(s.input.startRun(anAccount(), anAutomation({ tags: ['lead'] }), trigger)).resolves.toBe('9');
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ automation_id: 7, contact_ig_id: 'person-1', comment_id: 'comment-1', trigger_text: 'guide please' }));
    expect(s.contacts.tag).toHaveBeenCalledWith(1, 'person-1', ['lead']);
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'triggered', run_id: '9', ref: 'comment-1' }));
  });

  it('a reached plan limit records a skipped run (plan_limit) with an Event and starts nothing', async () => {
    const s = setup({}, 'monthly messages 3000/3000 (free plan)');
    await expect(s.input.startRun(anAccount(), anAutomation({ tags: ['lead'] }), trigger)).resolves.toBeNull();
    expect(s.runs.insert).toHaveBeenCalledTimes(1);
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ state: 'skipped', error: 'plan_limit', comment_id: 'comment-1' }));
    expect(s.contacts.tag).not.toHaveBeenCalled();
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'skipped', text: expect.stringContaining('plan_limit: monthly messages 3000/3000') }));
  });

  it('answers the run of the trigger when it exists, writing nothing', async () => {
    const s = setup({ forTrigger: jest.fn(async () => aRun({ id: '5' })) });
    await expect(s.input.startRun(anAccount(), anAutomation(), trigger)).resolves.toBe('5');
    expect(s.runs.insert).not.toHaveBeenCalled();
    expect(s.events.record).not.toHaveBeenCalled();
  });

  it('a concurrent worker inserted the run first (unique key): answers that run, no second Event', async () => {
    const forTrigger = jest.fn().mockResolvedValueOnce(null).mockResolvedValueOnce(aRun({ id: '6' }));
    const s = setup({ forTrigger, insert: jest.fn(async () => null) });
    await expect(s.input.startRun(anAccount(), anAutomation(), trigger)).resolves.toBe('6');
    expect(s.contacts.tag).not.toHaveBeenCalled();
    expect(s.events.record).not.toHaveBeenCalled();
  });

  it('once_per_user: a person seen before gets a skipped run and a skipped Event, no run to move', async () => {
    const s = setup({ hasRun: jest.fn(async () => true), insert: jest.fn(async () => aRun({ id: '8', state: 'skipped' })) });
    await expect(s.input.startRun(anAccount(), anAutomation({ once_per_user: true }), trigger)).resolves.toBeNull();
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ state: 'skipped', error: 'once_per_user' }));
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'skipped', run_id: '8' }));
    expect(s.contacts.tag).not.toHaveBeenCalled();
  });

  it('touch counts the input at the clock time; applied marks the item with its run', async () => {
    const s = setup();
    await s.input.touch(1, 'person-1', null, 'message');
    expect(s.contacts.touch).toHaveBeenCalledWith(1, 'person-1', null, 'message', NOW);
    await s.input.applied(anItem({ id: '100' }), '9');
    expect(s.inbound.markApplied).toHaveBeenCalledWith('100', '9');
  });

  it('a trigger without a handle (a message) takes the one the contact row knows', async () => {
    const s = setup();
    await s.input.startRun(anAccount(), anAutomation(), { ...trigger, username: undefined, commentId: null, messageId: 'mid-1' });
    expect(s.contacts.find).toHaveBeenCalledWith(1, 'person-1');
    expect(s.runs.insert).toHaveBeenCalledWith(expect.objectContaining({ username: 'known_jane', message_id: 'mid-1' }));
  });

  it('waitingRun: the run waiting for an email first, else (DMs only) one whose button went out as text', async () => {
    const email = aRun({ id: '1', state: 'awaiting_email' });
    const tap = aRun({ id: '2', state: 'awaiting_tap', text_fallback: true });
    await expect(setup({ awaitingEmail: jest.fn(async () => email), awaitingTapByText: jest.fn(async () => tap) }).input.waitingRun(1, 'person-1', 'message')).resolves.toBe(email);
    await expect(setup({ awaitingEmail: jest.fn(async () => null), awaitingTapByText: jest.fn(async () => tap) }).input.waitingRun(1, 'person-1', 'message')).resolves.toBe(tap);
    const story = setup({ awaitingEmail: jest.fn(async () => null), awaitingTapByText: jest.fn(async () => tap) });
    await expect(story.input.waitingRun(1, 'person-1', 'story_reply')).resolves.toBeNull();
    expect(story.runs.awaitingTapByText).not.toHaveBeenCalled();
  });
});
