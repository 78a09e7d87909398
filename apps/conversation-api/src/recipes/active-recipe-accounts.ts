import { Injectable } from '@nestjs/common';
import { RecipesRepository } from './recipes.repository';

/**
 * Whether an account has a published, enabled recipe, as the recipe consumer asks it on every
 * conversation event. Each answer comes from a read begun after the caller asked (so a recipe
 * published on any replica counts for every event received after its commit, as a read in the
 * event's own transaction would), but one read answers everyone who asked while the previous one
 * was in flight: under load, one indexed statement serves a burst of events.
 */
@Injectable()
export class ActiveRecipeAccounts {
  /** Per account: the read in flight, and the one queued behind it for those who asked meanwhile. */
  private readonly reads = new Map<string, { running: Promise<boolean>; queued: Promise<boolean> | null }>();

  constructor(private readonly recipes: RecipesRepository) {}

  has(accountId: string): Promise<boolean> {
    const slot = this.reads.get(accountId);
    if (!slot) return this.start(accountId);
    // The read in flight began before this question: take the next one.
    const settled = () => undefined;
    return (slot.queued ??= slot.running.then(settled, settled).then(() => this.start(accountId)));
  }

  private start(accountId: string): Promise<boolean> {
    const running = this.recipes.hasActive(accountId);
    this.reads.set(accountId, { running, queued: null });
    const done = () => {
      if (this.reads.get(accountId)?.running === running) this.reads.delete(accountId);
    };
    running.then(done, done);
    return running;
  }
}
