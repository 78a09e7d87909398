import { Logger } from '@nestjs/common';
import { PollingWorker } from './polling-worker';

/** Hands out the queued batch sizes one tick at a time; 0 when the queue is empty. */
class QueueWorker extends PollingWorker {
  protected readonly logger = new Logger('QueueWorker');
  readonly batches: number[] = [];
  ticks = 0;
  failNext = false;

  constructor(pollMs: number, private readonly on = true) {
    super(pollMs);
  }

  protected override enabled(): boolean {
    return this.on;
  }

  protected async tick(): Promise<number> {
    this.ticks++;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database went away');
    }
    return this.batches.shift() ?? 0;
  }
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !predicate(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(predicate()).toBe(true);
}

describe('PollingWorker', () => {
  it('drain() runs ticks until nothing is due and counts what they handled', async () => {
    const w = new QueueWorker(60_000);
    w.batches.push(3, 2);
    await expect(w.drain()).resolves.toBe(5);
    expect(w.ticks).toBe(3);
  });

  it('keeps ticking while work is found, then sleeps until wake()', async () => {
    const w = new QueueWorker(60_000);
    w.batches.push(1, 1);
    w.onApplicationBootstrap();
    await until(() => w.ticks === 3); // two batches, then an empty tick
    await new Promise((r) => setTimeout(r, 30));
    expect(w.ticks).toBe(3); // asleep: the poll interval is a minute
    w.batches.push(4);
    w.wake();
    await until(() => w.ticks === 5);
    await w.onModuleDestroy();
  });

  it('goes on after a failed tick (logged) and stops on shutdown after the running tick', async () => {
    const w = new QueueWorker(1);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    w.failNext = true;
    w.onApplicationBootstrap();
    await until(() => w.ticks >= 3);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('database went away'), expect.anything());
    await w.onModuleDestroy();
    const after = w.ticks;
    await new Promise((r) => setTimeout(r, 20));
    expect(w.ticks).toBe(after);
    error.mockRestore();
  });

  it('does not run when disabled', async () => {
    const w = new QueueWorker(1, false);
    w.onApplicationBootstrap();
    await new Promise((r) => setTimeout(r, 20));
    expect(w.ticks).toBe(0);
    await w.onModuleDestroy();
  });
});

describe('PollingWorker in a command context', () => {
  it('does not start in `node main.js migrate` or another command (SERVICE_MODE command)', async () => {
    const w = new QueueWorker(1);
    (w as unknown as { serviceMode: string }).serviceMode = 'command';
    w.onApplicationBootstrap();
    await new Promise((r) => setTimeout(r, 20));
    expect(w.ticks).toBe(0);
    await w.onModuleDestroy();
  });

  it('drain() waits for the tick the loop is running before its own', async () => {
    let release!: () => void;
    const order: string[] = [];
    class SlowWorker extends PollingWorker {
      protected readonly logger = new Logger('SlowWorker');
      first = true;
      constructor() {
        super(60_000);
      }
      protected async tick(): Promise<number> {
        if (this.first) {
          this.first = false;
          await new Promise<void>((r) => (release = r));
          order.push('loop tick');
          return 0;
        }
        order.push('drain tick');
        return 0;
      }
    }
    const w = new SlowWorker();
    w.onApplicationBootstrap();
    await until(() => release !== undefined);
    const drained = w.drain();
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    release();
    await drained;
    expect(order).toEqual(['loop tick', 'drain tick']);
    await w.onModuleDestroy();
  });

  it('drain() also waits for a tick the loop started while its own tick found nothing', async () => {
    let release!: () => void;
    const order: string[] = [];
    class RacingWorker extends PollingWorker {
      protected readonly logger = new Logger('RacingWorker');
      calls = 0;
      constructor() {
        super(60_000);
      }
      protected async tick(): Promise<number> {
        const call = ++this.calls;
        if (call === 2) {
          // drain's tick: meanwhile the loop is woken and claims the only job
          this.wake();
          await until(() => release !== undefined);
          order.push('drain tick found nothing');
          return 0;
        }
        if (call === 3) {
          await new Promise<void>((r) => (release = r));
          order.push('loop tick handled the job');
          return 1;
        }
        return 0;
      }
    }
    const w = new RacingWorker();
    w.onApplicationBootstrap();
    await until(() => w.calls === 1);
    await new Promise((r) => setTimeout(r, 5)); // the loop's first tick found nothing: asleep
    const drained = w.drain().then(() => order.push('drain resolved'));
    await until(() => order.length === 1);
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['drain tick found nothing']);
    release();
    await drained;
    expect(order.slice(0, 3)).toEqual(['drain tick found nothing', 'loop tick handled the job', 'drain resolved']);
    await w.onModuleDestroy();
  });
});
