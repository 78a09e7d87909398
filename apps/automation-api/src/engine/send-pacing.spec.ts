import { NOW, fake, fakeClock } from '../../test/engine-fakes';
import type { Clock } from '../common/clock';
import type { AutomationConfig } from '../config';
import type { GraphService } from '../graph/graph.service';
import type { PacingRepository } from './pacing.repository';
import { SendPacing, jittered } from './send-pacing';

function setup(opts: { budgetWait?: number; freeAt?: Date | null; spacing?: number; jitter?: number } = {}) {
  const repo = fake<PacingRepository>({ take: jest.fn(async () => (opts.freeAt === undefined ? null : opts.freeAt)), nextAt: jest.fn() });
  const graph = fake<GraphService>({ privateReplyBudget: jest.fn(() => ({ checkWaitMs: jest.fn(async () => opts.budgetWait ?? 0) })) });
  const config = { PRIVATE_REPLY_SPACING_MS: opts.spacing ?? 1_000, PRIVATE_REPLY_JITTER_MS: opts.jitter ?? 2_000 } as AutomationConfig;
  return { repo, pacing: new SendPacing(repo, graph, fakeClock() as unknown as Clock, config) };
}

describe('SendPacing (private replies under the hourly cap)', () => {
  it('gaps are the spacing plus a random 0…jitter', () => {
    expect(jittered(1_000, 2_000, () => 0)).toBe(1_000);
    expect(jittered(1_000, 2_000, () => 0.999)).toBe(2_998);
    expect(jittered(0, 0, () => 0.5)).toBe(0);
  });

  it('a free slot is taken for the next gap and the send goes now', async () => {
    const s = setup();
    await expect(s.pacing.privateReplyWaitMs(1, () => 0.5)).resolves.toBe(0);
    expect(s.repo.take).toHaveBeenCalledWith(1, NOW, 2_000);
  });

  it('a taken slot defers the item until it is free, plus jitter', async () => {
    const s = setup({ freeAt: new Date(NOW.getTime() + 1_500) });
    await expect(s.pacing.privateReplyWaitMs(1, () => 0.25)).resolves.toBe(1_500 + 500);
  });

  it('a used-up hourly budget defers until the budget has room, plus jitter, without taking the slot', async () => {
    const s = setup({ budgetWait: 60_000 });
    await expect(s.pacing.privateReplyWaitMs(1, () => 0.5)).resolves.toBe(61_000);
    expect(s.repo.take).not.toHaveBeenCalled();
  });

  it('no spacing and no jitter: no pacing (no database call)', async () => {
    const s = setup({ spacing: 0, jitter: 0 });
    await expect(s.pacing.privateReplyWaitMs(1)).resolves.toBe(0);
    expect(s.repo.take).not.toHaveBeenCalled();
  });
});
