import { NOW, aRun, anAccount, anItem, fake, fakeClock, fakeTransactions } from '../../test/engine-fakes';
import type { Clock } from '../common/clock';
import type { AutomationConfig } from '../config';
import type { EventsService } from '../events/events.service';
import type { RunsService } from '../runs/runs.service';
import type { InboundService } from './inbound.service';
import { ProcessSeen } from './process-seen';

function setup(opts: { run?: ReturnType<typeof aRun> | null; firstRead?: boolean; minutes?: number } = {}) {
  const tx = fakeTransactions();
  const runs = fake<RunsService>({ awaitingTapReadBy: jest.fn(async () => (opts.run === undefined ? aRun({ state: 'awaiting_tap' }) : opts.run)), markRead: jest.fn(async () => opts.firstRead ?? true) });
  const events = fake<EventsService>({ record: jest.fn() });
  const inbound = fake<InboundService>({ insert: jest.fn() });
  const config = { AUTOMATION_READ_FALLBACK_MINUTES: opts.minutes ?? 5 } as AutomationConfig;
  return { runs, events, inbound, useCase: new ProcessSeen(tx as never, runs, events, inbound, fakeClock() as unknown as Clock, config) };
}

const seen = (watermark: number | null, mid: string | null = null) => anItem({ kind: 'seen', payload: { sender_id: 'person-1', mid, watermark } });

describe('ProcessSeen (messaging_seen)', () => {
  it('the first read of a waiting run schedules the fallback after the configured wait, with an Event', async () => {
    const s = setup();
    await s.useCase.execute(seen(NOW.getTime() - 1000), anAccount());
    expect(s.runs.awaitingTapReadBy).toHaveBeenCalledWith(1, 'person-1', new Date(NOW.getTime() - 1000));
    expect(s.inbound.insert).toHaveBeenCalledWith([expect.objectContaining({ dedup_key: 'read_fallback:42', kind: 'read_fallback', subject: '1:person-1', payload: { run_id: '42' }, not_before: new Date(NOW.getTime() + 300_000) })]);
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'dm_read', run_id: '42' }));
  });

  it('a read by mid (no watermark) covers everything sent so far; a watermark in the future is capped at now', async () => {
    const s = setup();
    await s.useCase.execute(seen(null, 'mid-1'), anAccount());
    await s.useCase.execute(seen(NOW.getTime() + 60_000), anAccount());
    expect(s.runs.awaitingTapReadBy).toHaveBeenNthCalledWith(1, 1, 'person-1', NOW);
    expect(s.runs.awaitingTapReadBy).toHaveBeenNthCalledWith(2, 1, 'person-1', NOW);
  });

  it('no waiting run, a second read, or the fallback turned off: nothing scheduled', async () => {
    for (const s of [setup({ run: null }), setup({ firstRead: false }), setup({ minutes: 0 })]) {
      await s.useCase.execute(seen(NOW.getTime()), anAccount());
      expect(s.inbound.insert).not.toHaveBeenCalled();
    }
  });
});
