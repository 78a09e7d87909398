import { NOW, aRun, anItem, fake, fakeClock } from '../../test/engine-fakes';
import type { AccountsService } from '../accounts/accounts.service';
import type { EventsService } from '../events/events.service';
import { GraphApiError } from '../graph/graph-api.error';
import type { RunsService } from '../runs/runs.service';
import { RunError } from './engine-errors';
import { FailRun } from './fail-run';

function setup() {
  const runs = fake<RunsService>({ fail: jest.fn(), find: jest.fn(async () => aRun({ username: 'jane' })) });
  const events = fake<EventsService>({ record: jest.fn() });
  const accounts = fake<AccountsService>({ update: jest.fn() });
  return { runs, events, accounts, fail: new FailRun(runs, events, accounts, fakeClock() as never) };
}

describe('FailRun', () => {
  it('a platform error: the run goes to error, an error Event, and the account’s problem for GET /status', async () => {
    const s = setup();
    await s.fail.execute(anItem({ dedup_key: 'comment:c1' }), new RunError('42', new GraphApiError('auth', 'token expired')));
    expect(s.runs.fail).toHaveBeenCalledWith('42', 'token expired');
    expect(s.events.record).toHaveBeenCalledWith(1, { kind: 'error', automation_id: 7, run_id: '42', username: 'jane', text: 'token expired', ref: 'comment:c1' });
    expect(s.accounts.update).toHaveBeenCalledWith(1, { last_problem: 'Engine: run 42: Social platform API error: token expired', last_problem_at: NOW });
  });

  it('another failure without a run: only the error Event, the account untouched', async () => {
    const s = setup();
    await s.fail.execute(anItem(), new Error('database down'));
    expect(s.runs.fail).not.toHaveBeenCalled();
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'error', run_id: null, text: 'database down' }));
    expect(s.accounts.update).not.toHaveBeenCalled();
  });
});
