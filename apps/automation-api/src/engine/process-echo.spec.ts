import { NOW, aRun, anAccount, anItem, fake, fakeClock, fakeTransactions } from '../../test/engine-fakes';
import type { Clock } from '../common/clock';
import type { AutomationConfig } from '../config';
import type { ContactsService } from '../contacts/contacts.service';
import type { EventsService } from '../events/events.service';
import type { RunsService } from '../runs/runs.service';
import { ProcessEcho } from './process-echo';
import type { SendRow, SendsRepository } from './sends.repository';

function setup(opts: { known?: string[]; open?: Array<SendRow & { run_id: string }>; minutes?: number; taken?: Array<{ id: string; automation_id: number }> } = {}) {
  const tx = fakeTransactions();
  const sends = fake<SendsRepository>({ knownPlatformIds: jest.fn(async () => new Set(opts.known ?? [])), openForPerson: jest.fn(async () => opts.open ?? []), done: jest.fn() });
  const runs = fake<RunsService>({ idsForPerson: jest.fn(async () => ['42']), find: jest.fn(async () => aRun()), markTakenOver: jest.fn(async () => opts.taken ?? [{ id: '42', automation_id: 7 }]) });
  const contacts = fake<ContactsService>({ pauseUntil: jest.fn(), find: jest.fn(async () => ({ username: 'jane' })) });
  const events = fake<EventsService>({ record: jest.fn() });
  const config = { AUTOMATION_TAKEOVER_MINUTES: opts.minutes ?? 60 } as AutomationConfig;
  const useCase = new ProcessEcho(tx as never, sends, runs, contacts, events, fakeClock() as unknown as Clock, config);
  return { useCase, sends, runs, contacts, events, tx };
}

const echo = (text: string, mid = 'mid-x') => anItem({ kind: 'echo', dedup_key: `echo:${mid}`, payload: { mid, recipient_id: 'person-1', text } });
const open = (text: string): SendRow & { run_id: string } => ({ id: 's9', status: 'uncertain', kind: 'dm', payload: { message: { text } }, platform_id: null, created_at: NOW, run_id: '42' });

describe('ProcessEcho (human takeover)', () => {
  it("the echo of the service's own confirmed send is nothing", async () => {
    const s = setup({ known: ['mid-x'] });
    await s.useCase.execute(echo('Here'), anAccount());
    expect(s.contacts.pauseUntil).not.toHaveBeenCalled();
    expect(s.sends.openForPerson).not.toHaveBeenCalled();
  });

  it('an echo with the text of an unconfirmed send confirms it (not a takeover)', async () => {
    const s = setup({ open: [open('Here')] });
    await s.useCase.execute(echo('Here'), anAccount());
    expect(s.sends.done).toHaveBeenCalledWith('s9', 'mid-x', 'confirmed by its echo');
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'send_confirmed', run_id: '42' }));
    expect(s.contacts.pauseUntil).not.toHaveBeenCalled();
  });

  it('any other echo pauses the conversation for the configured minutes and stamps the running runs, in one transaction', async () => {
    const s = setup();
    await s.useCase.execute(echo('Hi, Anna here'), anAccount());
    expect(s.tx.opened).toBe(1);
    expect(s.contacts.pauseUntil).toHaveBeenCalledWith(1, 'person-1', new Date(NOW.getTime() + 3_600_000));
    expect(s.runs.markTakenOver).toHaveBeenCalledWith(1, 'person-1', NOW);
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'human_takeover', run_id: '42', automation_id: 7, ref: 'mid-x' }));
  });

  it('without running runs the takeover is still logged; 0 minutes turns it off; a textless echo beside an unconfirmed send is ambiguous', async () => {
    const s = setup({ taken: [] });
    await s.useCase.execute(echo('Hello'), anAccount());
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'human_takeover', username: 'jane' }));
    const off = setup({ minutes: 0 });
    await off.useCase.execute(echo('Hello'), anAccount());
    expect(off.contacts.pauseUntil).not.toHaveBeenCalled();
    const ambiguous = setup({ open: [open('Here')] });
    await ambiguous.useCase.execute(echo(''), anAccount());
    expect(ambiguous.contacts.pauseUntil).not.toHaveBeenCalled();
    expect(ambiguous.sends.done).not.toHaveBeenCalled();
  });
});
