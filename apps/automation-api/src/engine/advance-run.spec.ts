import { NOW, aRun, anAccount, anAutomation, anItem, fake, fakeClock } from '../../test/engine-fakes';
import type { Clock } from '../common/clock';
import type { ContactsService } from '../contacts/contacts.service';
import type { EventsService } from '../events/events.service';
import { AdvanceRun } from './advance-run';
import type { ReadProfile } from './read-profile';
import type { RecordTransition } from './record-transition';
import type { SendMessage, SendOutcome } from './send-message';

function setup(outcomes: SendOutcome[] = [], follows: boolean | null = true, contact: Record<string, unknown> | null = null) {
  const profiles = fake<ReadProfile>({ followStatus: jest.fn(async () => follows) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => contact) });
  const events = fake<EventsService>({ record: jest.fn() });
  const sendMessage = fake<SendMessage>({ execute: jest.fn(async () => outcomes.shift() ?? 'sent') });
  const record = fake<RecordTransition>({ execute: jest.fn() });
  return { profiles, events, sendMessage, record, advance: new AdvanceRun(profiles, contacts, events, sendMessage, record, fakeClock() as unknown as Clock) };
}

describe('AdvanceRun', () => {
  it('start of a comment run: public reply and DM with the link sent, then the transition recorded', async () => {
    const s = setup();
    await s.advance.execute(anAccount(), anAutomation({ public_replies: ['Sent you a DM'] }), aRun(), anItem(), { type: 'start', answeredByOther: false, knownEmail: null, random: () => 0 });
    expect((s.sendMessage.execute as jest.Mock).mock.calls.map((c: unknown[]) => (c[3] as { kind: string }).kind)).toEqual(['public_reply', 'dm']);
    expect(s.record.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.objectContaining({ state: 'done', stamps: ['public_reply_sent_at', 'dm_sent_at', 'link_sent_at'] }));
  });

  it('the first private reply refused (another tool answered): skipped_other_tool, the public reply stamped', async () => {
    const s = setup(['sent', 'refused']);
    await s.advance.execute(anAccount(), anAutomation({ public_replies: ['Sent you a DM'] }), aRun(), anItem(), { type: 'start', answeredByOther: false, knownEmail: null, random: () => 0 });
    expect(s.record.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.objectContaining({ state: 'skipped_other_tool', stamps: ['public_reply_sent_at'], notes: ['skipped_other_tool'] }));
  });

  it('a comment past the private-reply window ends skipped with the reason', async () => {
    const s = setup(['window_closed']);
    await s.advance.execute(anAccount(), anAutomation(), aRun(), anItem(), { type: 'start', answeredByOther: false, knownEmail: null });
    expect(s.record.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.objectContaining({ state: 'skipped', error: 'private reply window closed (comment older than 7 days)' }));
  });

  it('the follower gate asks the platform for the follow status before deciding', async () => {
    const s = setup([], false);
    await s.advance.execute(anAccount(), anAutomation({ follow_gate: true, opening_button: 'Send link' }), aRun({ state: 'awaiting_tap' }), anItem(), { type: 'tap', knownEmail: null });
    expect(s.profiles.followStatus).toHaveBeenCalled();
    expect(s.record.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.objectContaining({ state: 'gated' }));
  });

  it('an input that changes nothing records only its notes as Events, no transition', async () => {
    const s = setup();
    await s.advance.execute(anAccount(), anAutomation(), aRun({ state: 'done' }), anItem(), { type: 'start', answeredByOther: false, knownEmail: null });
    expect(s.record.execute).not.toHaveBeenCalled();
    expect(s.sendMessage.execute).not.toHaveBeenCalled();
  });

  it('while a person of the account has taken the conversation over, a tap moves nothing and a due reminder ends the run unsent', async () => {
    const paused = { paused_until: new Date(NOW.getTime() + 60_000) };
    const s = setup([], true, paused);
    const waiting = aRun({ state: 'awaiting_tap', dm_sent_at: NOW });
    await s.advance.execute(anAccount(), anAutomation({ opening_button: 'Go' }), waiting, anItem(), { type: 'tap', knownEmail: null, now: NOW });
    expect(s.sendMessage.execute).not.toHaveBeenCalled();
    expect(s.record.execute).not.toHaveBeenCalled();
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'skipped', text: expect.stringContaining('human_takeover: tap not acted on') }));

    const linkSent = aRun({ state: 'link_sent', link_sent_at: NOW });
    await s.advance.execute(anAccount(), anAutomation({ follow_up_text: 'Hey?', follow_up_minutes: 5 }), linkSent, anItem(), { type: 'follow_up_due', windowOpen: true });
    expect(s.sendMessage.execute).not.toHaveBeenCalled();
    expect(s.record.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.objectContaining({ state: 'done', messages: [] }));
  });

  it('a pause that has ended no longer holds the run', async () => {
    const s = setup([], true, { paused_until: new Date(NOW.getTime() - 1) });
    await s.advance.execute(anAccount(), anAutomation({ opening_button: 'Go' }), aRun({ state: 'awaiting_tap', dm_sent_at: NOW }), anItem(), { type: 'tap', knownEmail: null, now: NOW });
    expect(s.sendMessage.execute).toHaveBeenCalledTimes(1);
  });
});
