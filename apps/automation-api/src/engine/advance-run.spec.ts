import { aRun, anAccount, anAutomation, anItem, fake } from '../../test/engine-fakes';
import type { ContactsService } from '../contacts/contacts.service';
import type { EventsService } from '../events/events.service';
import { AdvanceRun } from './advance-run';
import type { ReadProfile } from './read-profile';
import type { RecordTransition } from './record-transition';
import type { SendMessage, SendOutcome } from './send-message';

function setup(outcomes: SendOutcome[] = [], follows: boolean | null = true) {
  const profiles = fake<ReadProfile>({ followStatus: jest.fn(async () => follows) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => null) });
  const events = fake<EventsService>({ record: jest.fn() });
  const sendMessage = fake<SendMessage>({ execute: jest.fn(async () => outcomes.shift() ?? 'sent') });
  const record = fake<RecordTransition>({ execute: jest.fn() });
  return { profiles, events, sendMessage, record, advance: new AdvanceRun(profiles, contacts, events, sendMessage, record) };
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
});
