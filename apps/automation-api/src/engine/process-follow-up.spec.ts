import { NOW, aRun, anAccount, anAutomation, anItem, fake, fakeClock } from '../../test/engine-fakes';
import type { AutomationsService } from '../automations/automations.service';
import type { ContactsService } from '../contacts/contacts.service';
import type { RunsService } from '../runs/runs.service';
import type { AdvanceRun } from './advance-run';
import { LoadRun } from './load-run';
import { ProcessFollowUp } from './process-follow-up';

function setup(lastInboundAt: Date | null) {
  const runs = fake<RunsService>({ find: jest.fn(async () => aRun({ state: 'link_sent' })) });
  const automations = fake<AutomationsService>({ findById: jest.fn(async () => anAutomation()) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => ({ last_inbound_at: lastInboundAt })) });
  const advance = fake<AdvanceRun>({ execute: jest.fn() });
  return { runs, advance, process: new ProcessFollowUp(new LoadRun(runs, automations, contacts), advance, fakeClock() as never) };
}

describe('ProcessFollowUp', () => {
  it('the reminder is due: the run gets it with whether the 24-hour window is open', async () => {
    const open = setup(new Date(NOW.getTime() - 23 * 3_600_000));
    await open.process.execute(anItem({ kind: 'follow_up', payload: { run_id: '42' } }), anAccount());
    expect(open.runs.find).toHaveBeenCalledWith('42');
    expect(open.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.anything(), { type: 'follow_up_due', windowOpen: true });
    const closed = setup(new Date(NOW.getTime() - 25 * 3_600_000));
    await closed.process.execute(anItem({ kind: 'follow_up', payload: { run_id: '42' } }), anAccount());
    expect(closed.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.anything(), { type: 'follow_up_due', windowOpen: false });
    const never = setup(null);
    await never.process.execute(anItem({ kind: 'follow_up', payload: { run_id: '42' } }), anAccount());
    expect(never.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.anything(), { type: 'follow_up_due', windowOpen: false });
  });
});
