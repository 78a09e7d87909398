import { aRun, anAccount, anAutomation, anItem, fake } from '../../test/engine-fakes';
import type { EventsService } from '../events/events.service';
import { GraphApiError } from '../graph/graph-api.error';
import type { AdvanceRun } from './advance-run';
import type { LoadRun } from './load-run';
import { ProcessReadFallback } from './process-read-fallback';

function setup(run = aRun({ state: 'awaiting_tap' }), advance: jest.Mock = jest.fn()) {
  const loadRun = fake<LoadRun>({ execute: jest.fn(async () => ({ run, automation: anAutomation({ opening_button: 'Go' }), contact: { email: 'a@b.co' } })) });
  const events = fake<EventsService>({ record: jest.fn() });
  const adv = fake<AdvanceRun>({ execute: advance });
  return { events, advance, useCase: new ProcessReadFallback(loadRun, adv, events) };
}

const due = anItem({ kind: 'read_fallback', dedup_key: 'read_fallback:42', payload: { run_id: '42' } });

describe('ProcessReadFallback', () => {
  it('a run still waiting for the tap gets the read_fallback input', async () => {
    const s = setup();
    await s.useCase.execute(due, anAccount());
    expect(s.advance).toHaveBeenCalledWith(expect.anything(), expect.anything(), expect.objectContaining({ id: '42' }), due, { type: 'read_fallback', knownEmail: 'a@b.co' });
  });

  it('a run tapped or moved on meanwhile is left alone', async () => {
    for (const run of [aRun({ state: 'awaiting_tap', button_tapped_at: new Date() }), aRun({ state: 'done' })]) {
      const s = setup(run);
      await s.useCase.execute(due, anAccount());
      expect(s.advance).not.toHaveBeenCalled();
    }
  });

  it('a refusal by the platform (no messaging window) is an Event, not a failed run; a passing error is retried', async () => {
    const refused = new GraphApiError('platform', 'This message is sent outside of allowed window', { code: 10, subcode: 2534022 });
    const s = setup(undefined, jest.fn(async () => Promise.reject(refused)));
    await expect(s.useCase.execute(due, anAccount())).resolves.toBeUndefined();
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'read_fallback_refused', run_id: '42' }));
    const timeout = new GraphApiError('timeout', 'no answer');
    const t = setup(undefined, jest.fn(async () => Promise.reject(timeout)));
    await expect(t.useCase.execute(due, anAccount())).rejects.toBeDefined();
  });
});
