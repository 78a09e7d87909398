import { NOW, aRun, anAccount, anAutomation, anItem, fake, fakeClock, fakeTransactions } from '../../test/engine-fakes';
import type { AutomationsService } from '../automations/automations.service';
import type { ContactsService } from '../contacts/contacts.service';
import type { RunsService } from '../runs/runs.service';
import type { AdvanceRun } from './advance-run';
import type { ApplyInput } from './apply-input';
import { LoadRun } from './load-run';
import { ProcessPostback } from './process-postback';

function setup(run = aRun({ state: 'awaiting_tap' })) {
  const transactions = fakeTransactions();
  const input = fake<ApplyInput>({ touch: jest.fn(), applied: jest.fn() });
  const runs = fake<RunsService>({ find: jest.fn(async () => run) });
  const automations = fake<AutomationsService>({ findById: jest.fn(async () => anAutomation()) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => ({ email: null })) });
  const advance = fake<AdvanceRun>({ execute: jest.fn() });
  return { transactions, input, advance, process: new ProcessPostback(transactions as never, input, runs, new LoadRun(runs, automations, contacts), advance, fakeClock() as never) };
}

describe('ProcessPostback', () => {
  it('a tap on the button of the person’s own run is bound to it (one transaction) and fed to it', async () => {
    const s = setup();
    await s.process.execute(anItem({ kind: 'postback', payload: { mid: 'm', sender_id: 'person-1', payload: 'run:42:open' } }), anAccount());
    expect(s.transactions.opened).toBe(1);
    expect(s.input.touch).toHaveBeenCalledWith(1, 'person-1', null, 'tap');
    expect(s.input.applied).toHaveBeenCalledWith(expect.anything(), '42');
    expect(s.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.objectContaining({ id: '42' }), expect.anything(), { type: 'tap', knownEmail: null, now: NOW });
  });

  it('a payload naming someone else’s run (or none) is ignored', async () => {
    const s = setup();
    await s.process.execute(anItem({ kind: 'postback', payload: { mid: 'm', sender_id: 'intruder', payload: 'run:42:open' } }), anAccount());
    expect(s.input.applied).toHaveBeenCalledWith(expect.anything(), null);
    expect(s.advance.execute).not.toHaveBeenCalled();
    const none = setup();
    await none.process.execute(anItem({ kind: 'postback', payload: { mid: 'm', sender_id: 'person-1', payload: 'garbage' } }), anAccount());
    expect(none.advance.execute).not.toHaveBeenCalled();
  });
});
