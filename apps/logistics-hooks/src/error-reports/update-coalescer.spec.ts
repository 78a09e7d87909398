import { UpdateCoalescer, type CoalescerClock } from './update-coalescer';

class ManualClock implements CoalescerClock {
  time = 0;
  timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 1;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== handle);
  };
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const t of due) t.fn();
  }
}

describe('UpdateCoalescer (one error_updated per record per second)', () => {
  let clock: ManualClock;
  let sent: [string, number][];
  let coalescer: UpdateCoalescer<number>;
  beforeEach(() => {
    clock = new ManualClock();
    sent = [];
    coalescer = new UpdateCoalescer<number>(1000, (key, value) => sent.push([key, value]), clock);
  });

  it.each([
    ['one update goes out at once', [[0, 'a', 1]], 0, [['a', 1]]],
    ['a burst gives the first at once and the latest at the end of the second', [[0, 'a', 1], [10, 'a', 2], [20, 'a', 3]], 1000, [['a', 1], ['a', 3]]],
    ['updates a second apart each go out at once', [[0, 'a', 1], [1000, 'a', 2]], 0, [['a', 1], ['a', 2]]],
    ['keys are independent', [[0, 'a', 1], [0, 'b', 1], [5, 'a', 2]], 1000, [['a', 1], ['b', 1], ['a', 2]]],
    ['nothing trails when the burst is a single update', [[0, 'a', 1]], 5000, [['a', 1]]],
  ] as [string, [number, string, number][], number, [string, number][]][])('%s', (_name, pushes, after, expected) => {
    let at = 0;
    for (const [time, key, value] of pushes) {
      clock.advance(time - at);
      at = time;
      coalescer.push(key, value);
    }
    clock.advance(after);
    expect(sent).toEqual(expected);
  });

  it('sends at most one per key in any second of a long burst', () => {
    for (let i = 0; i < 300; i++) {
      coalescer.push('a', i);
      clock.advance(10);
    }
    clock.advance(1000);
    const times: number[] = [];
    const c2 = new UpdateCoalescer<number>(1000, () => times.push(clock.now()), clock);
    for (let i = 0; i < 300; i++) {
      c2.push('b', i);
      clock.advance(10);
    }
    clock.advance(1000);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(1000);
    expect(times.length).toBe(4);
    expect(sent.at(-1)).toEqual(['a', 299]);
  });

  it('forget drops a held update', () => {
    coalescer.push('a', 1);
    coalescer.push('a', 2);
    coalescer.forget('a');
    clock.advance(2000);
    expect(sent).toEqual([['a', 1]]);
  });
});
