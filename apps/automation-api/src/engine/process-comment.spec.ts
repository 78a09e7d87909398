import { aRun, anAccount, anAutomation, anItem, fake, fakeTransactions } from '../../test/engine-fakes';
import type { AutomationsService } from '../automations/automations.service';
import type { ContactsService } from '../contacts/contacts.service';
import type { RunsService } from '../runs/runs.service';
import type { AdvanceRun } from './advance-run';
import type { AnsweredByOther } from './answered-by-other';
import type { ApplyInput } from './apply-input';
import { RunError } from './engine-errors';
import { ProcessComment } from './process-comment';

const payload = { comment_id: 'comment-1', media_id: 'media-1', text: 'guide please', from: { id: 'person-1', username: 'jane' }, entry_id: '1780000000000001' };

function setup(opts: { automations?: ReturnType<typeof anAutomation>[]; run?: ReturnType<typeof aRun> | null; handled?: boolean; answered?: boolean; advance?: jest.Mock } = {}) {
  const transactions = fakeTransactions();
  const order: string[] = [];
  const input = fake<ApplyInput>({
    touch: jest.fn(async () => void order.push('touch')),
    startRun: jest.fn(async () => (order.push('start'), '42')),
    applied: jest.fn(async () => void order.push('applied')),
  });
  const runs = fake<RunsService>({ commentHandled: jest.fn(async () => opts.handled ?? false), find: jest.fn(async () => (opts.run === undefined ? aRun() : opts.run)) });
  const a = opts.automations ?? [anAutomation()];
  const automations = fake<AutomationsService>({ live: jest.fn(async () => a), findById: jest.fn(async () => a[0] ?? null) });
  const contacts = fake<ContactsService>({ find: jest.fn(async () => ({ email: 'known@example.com' })) });
  const answeredByOther = fake<AnsweredByOther>({ execute: jest.fn(async () => opts.answered ?? false) });
  const advance = fake<AdvanceRun>({ execute: opts.advance ?? jest.fn() });
  return { transactions, order, input, runs, answeredByOther, advance, process: new ProcessComment(transactions as never, input, runs, automations, contacts, answeredByOther, advance) };
}

describe('ProcessComment', () => {
  it('in one transaction counts the person, matches the comment, starts the run and marks the item; then starts the run', async () => {
    const s = setup();
    await s.process.execute(anItem({ payload }), anAccount());
    expect(s.transactions.opened).toBe(1);
    expect(s.order).toEqual(['touch', 'start', 'applied']);
    expect(s.input.startRun).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ id: 7 }), expect.objectContaining({ igId: 'person-1', commentId: 'comment-1', trigger: 'comment' }));
    expect(s.input.applied).toHaveBeenCalledWith(expect.objectContaining({ id: '100' }), '42');
    expect(s.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.objectContaining({ id: '42' }), expect.anything(), { type: 'start', answeredByOther: false, knownEmail: 'known@example.com' });
  });

  it('no automation covers the post or matches: the item is marked without a run and nothing moves', async () => {
    const s = setup({ automations: [anAutomation({ media_ids: ['other-media'] })] });
    await s.process.execute(anItem({ payload }), anAccount());
    expect(s.input.startRun).not.toHaveBeenCalled();
    expect(s.input.applied).toHaveBeenCalledWith(expect.anything(), null);
    expect(s.advance.execute).not.toHaveBeenCalled();
  });

  it('an applied item goes straight to its run; a run past started is left alone', async () => {
    const s = setup({ run: aRun({ state: 'dm_sent' }) });
    await s.process.execute(anItem({ payload, applied_at: new Date(), run_id: '42' }), anAccount());
    expect(s.transactions.opened).toBe(0);
    expect(s.advance.execute).not.toHaveBeenCalled();
  });

  it('a backfilled comment the service already handled is skipped; a counted one does not count the person again', async () => {
    const handled = setup({ handled: true });
    await handled.process.execute(anItem({ kind: 'backfill', payload: { ...payload, automation_id: 7 } }), anAccount());
    expect(handled.transactions.opened).toBe(0);
    const counted = setup({ automations: [anAutomation({ id: 7 }), anAutomation({ id: 8 })] });
    await counted.process.execute(anItem({ kind: 'backfill', payload: { ...payload, automation_id: 8, counted: true } }), anAccount());
    expect(counted.input.touch).not.toHaveBeenCalled();
    expect(counted.input.startRun).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ id: 8 }), expect.anything());
  });

  it('skip_if_answered asks whether the account answered itself, with the account’s platform id', async () => {
    const s = setup({ automations: [anAutomation({ skip_if_answered: true })], answered: true });
    await s.process.execute(anItem({ payload }), anAccount({ ig_user_id: null }));
    expect(s.answeredByOther.execute).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ id: '42' }), '1780000000000001');
    expect(s.advance.execute).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.anything(), expect.anything(), expect.objectContaining({ answeredByOther: true }));
  });

  it('a failure while moving the run becomes a RunError of that run', async () => {
    const s = setup({ advance: jest.fn(async () => Promise.reject(new Error('boom'))) });
    await expect(s.process.execute(anItem({ payload }), anAccount())).rejects.toEqual(expect.objectContaining({ runId: '42', message: 'boom' }));
    await expect(setup({ advance: jest.fn(async () => Promise.reject(new Error('boom'))) }).process.execute(anItem({ payload }), anAccount())).rejects.toBeInstanceOf(RunError);
  });
});
