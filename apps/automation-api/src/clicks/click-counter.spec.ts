import type { OutboxRelay } from '@platform/messaging';
import type { AutomationConfig } from '../config';
import { CLICK_COUNT_MAX, CLICK_EVENTS_LEASE_SECONDS, ClickCounter } from './click-counter';
import type { ClickEvent, ClicksRepository } from './clicks.repository';

const event = (id: string): ClickEvent => ({
  id,
  event_id: `00000000-0000-4000-8000-${id.padStart(12, '0')}`,
  type: 'automation.link_clicked',
  source: 'automation-api',
  occurred_at: new Date('2026-01-02T03:04:05.000Z'),
  data: { runId: id },
});

/** A counter over fakes: `rounds` are what successive counting statements answer. */
function counterWith(rounds: Array<{ counted: number; events: ClickEvent[] }>) {
  const repo = { countStored: jest.fn(async () => rounds.shift() ?? { counted: 0, events: [] }) };
  let publishedAll!: () => void;
  const pending = new Promise<void>((resolve) => (publishedAll = resolve));
  const relay = { publishClaimed: jest.fn(() => pending) };
  const counter = new ClickCounter(repo as unknown as ClicksRepository, relay as unknown as OutboxRelay, 'automation-api', { AUTOMATION_POLL_MS: 1000 } as AutomationConfig);
  return { counter, repo, relay, publishedAll };
}

describe('ClickCounter', () => {
  it("counts until a round holds fewer than the maximum, hands each round's claimed events to the relay to publish, and waits for them", async () => {
    const f = counterWith([
      { counted: CLICK_COUNT_MAX, events: [event('1'), event('2')] },
      { counted: 3, events: [event('3')] },
    ]);
    let done = false;
    const counting = f.counter.countNow().then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(f.repo.countStored).toHaveBeenCalledTimes(2);
    expect(f.repo.countStored).toHaveBeenCalledWith(CLICK_COUNT_MAX, 'automation-api', CLICK_EVENTS_LEASE_SECONDS);
    expect(f.relay.publishClaimed.mock.calls).toEqual([[[event('1'), event('2')]], [[event('3')]]]);
    expect(done).toBe(false); // the publishes are still running
    f.publishedAll();
    await counting;
    expect(done).toBe(true);
  });

  it('hands nothing to the relay for a round without events', async () => {
    const f = counterWith([{ counted: 0, events: [] }]);
    f.publishedAll();
    await f.counter.countNow();
    expect(f.relay.publishClaimed).not.toHaveBeenCalled();
  });

  it('counted() resolves once a round that began after the call has ended, not with a round already running', async () => {
    let finishFirst!: () => void;
    const first = new Promise<{ counted: number; events: ClickEvent[] }>((resolve) => (finishFirst = () => resolve({ counted: 1, events: [] })));
    let finishSecond!: () => void;
    const second = new Promise<{ counted: number; events: ClickEvent[] }>((resolve) => (finishSecond = () => resolve({ counted: 0, events: [] })));
    const repo = { countStored: jest.fn().mockReturnValueOnce(first).mockReturnValueOnce(second).mockResolvedValue({ counted: 0, events: [] }) };
    const counter = new ClickCounter(repo as unknown as ClicksRepository, { publishClaimed: jest.fn() } as unknown as OutboxRelay, 'automation-api', { AUTOMATION_POLL_MS: 1000 } as AutomationConfig);
    counter.wake(0);
    await new Promise((r) => setTimeout(r, 5));
    expect(repo.countStored).toHaveBeenCalledTimes(1); // the first round runs
    let answered = false;
    const waiting = counter.counted().then(() => (answered = true));
    finishFirst();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBe(false); // the round that was running when it asked does not count for it
    finishSecond();
    await waiting;
    expect(repo.countStored).toHaveBeenCalledTimes(2); // the next round ran, then it was answered
  });
});
