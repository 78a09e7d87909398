/**
 * Group commit: `add(item)` resolves once a `write` that included the item has finished. One write
 * runs at a time; the items added while it runs go together into the next one. Many callers each
 * waiting for their own record then cost one statement per round trip, not one each.
 */
export class GroupCommit<T> {
  private pending: Array<{ item: T; resolve: () => void; reject: (err: unknown) => void }> = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const round = this.pending;
        this.pending = [];
        try {
          await this.write(round.map((p) => p.item));
          for (const p of round) p.resolve();
        } catch (err) {
          for (const p of round) p.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
