/** How a {@link GroupCommit} groups its items. */
export interface GroupCommitOptions<T> {
  /** Writes running at once (default 1); items added while they all run wait for the next write. */
  inFlight?: number;
  /** Most weight in one write (default: no limit); an item heavier than that is written alone. */
  maxBatch?: number;
  /** An item's weight against `maxBatch` (default 1: a count of items). */
  weight?: (item: T) => number;
  /**
   * Gather the items added in the same turn of the event loop before a write starts (requests read
   * from many sockets at once then share a statement). Default false: a write starts as soon as
   * there is room, with whatever waits.
   */
  sameTurn?: boolean;
  /**
   * When a write of several items fails, write each alone, so that one item's problem is its own
   * rejection and not its neighbours' (default false: every item of the failed write rejects).
   */
  retryAlone?: boolean;
}

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: many callers each waiting for their own record cost one statement per write, not one
 * each. `add(item)` resolves, with the write's result for that item, once a write that included it
 * has finished (committed): while `inFlight` writes run, the items added meanwhile queue up and go
 * together into the next one, oldest first, up to `maxBatch`; under light load an item is written at
 * once, alone. `write(items)` returns one result per item, in order (or nothing: each resolves with
 * undefined); a write that throws rejects its items, or with `retryAlone` writes each of them alone.
 */
export class GroupCommit<T, R = void> {
  private queue: Pending<T, R>[] = [];
  private running = 0;
  private gathering = false;
  private readonly inFlight: number;
  private readonly maxBatch: number;
  private readonly weight: (item: T) => number;

  constructor(
    private readonly write: (items: T[]) => Promise<R[] | void>,
    private readonly opts: GroupCommitOptions<T> = {},
  ) {
    this.inFlight = Math.max(1, opts.inFlight ?? 1);
    this.maxBatch = opts.maxBatch ?? Infinity;
    this.weight = opts.weight ?? (() => 1);
  }

  /** Resolves with the item's result once the write holding it finished; rejects when it failed. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.opts.sameTurn) return this.pump();
      if (this.gathering) return;
      this.gathering = true;
      setImmediate(() => {
        this.gathering = false;
        this.pump();
      });
    });
  }

  /** Items added and not yet written or being written. */
  get waiting(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.running < this.inFlight && this.queue.length > 0) {
      const batch = this.take();
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The oldest waiting items up to `maxBatch` of weight (at least one). */
  private take(): Pending<T, R>[] {
    let total = this.weight(this.queue[0].item);
    let n = 1;
    while (n < this.queue.length) {
      const next = total + this.weight(this.queue[n].item);
      if (next > this.maxBatch) break;
      total = next;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private async run(batch: Pending<T, R>[]): Promise<void> {
    try {
      settle(batch, await this.write(batch.map((p) => p.item)));
    } catch (err) {
      if (!this.opts.retryAlone || batch.length === 1) {
        for (const p of batch) p.reject(err);
        return;
      }
      await Promise.all(
        batch.map((p) =>
          this.write([p.item]).then(
            (results) => settle([p], results),
            (e: unknown) => p.reject(e),
          ),
        ),
      );
    }
  }
}

function settle<T, R>(batch: Pending<T, R>[], results: R[] | void): void {
  batch.forEach((p, i) => p.resolve((results ? results[i] : undefined) as R));
}
