import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { GraphService } from '../graph/graph.service';
import { PacingRepository } from './pacing.repository';

/** A gap of `spacingMs` plus a random 0…`jitterMs` (pure; `random` in [0, 1)). */
export function jittered(spacingMs: number, jitterMs: number, random: () => number = Math.random): number {
  return spacingMs + Math.floor(random() * jitterMs);
}

/**
 * Pacing of private replies under the platform's hourly cap. Before a private reply is recorded, the
 * account's shared hourly budget (PRIVATE_REPLIES_PER_HOUR, PostgreSQL) must have room and the
 * account's send slot must be free: private replies of one account go out at least
 * PRIVATE_REPLY_SPACING_MS plus a random 0…PRIVATE_REPLY_JITTER_MS apart, across replicas (a burst of
 * comments is answered at a human pace instead of in one second). Otherwise the answer is how long
 * the work item waits (deferred: not an attempt, not an error), with jitter, so that deferred items
 * do not all come back at the same moment.
 */
@Injectable()
export class SendPacing {
  constructor(
    private readonly repo: PacingRepository,
    private readonly graph: GraphService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  /** 0: go now (the slot is taken); else milliseconds to wait before trying again. */
  async privateReplyWaitMs(accountId: number, random: () => number = Math.random): Promise<number> {
    const jitter = () => Math.floor(random() * this.config.PRIVATE_REPLY_JITTER_MS);
    const budgetWait = await this.graph.privateReplyBudget(accountId).checkWaitMs();
    if (budgetWait > 0) return budgetWait + jitter();
    const gap = jittered(this.config.PRIVATE_REPLY_SPACING_MS, this.config.PRIVATE_REPLY_JITTER_MS, random);
    if (gap <= 0) return 0;
    const now = this.clock.now();
    const freeAt = await this.repo.take(accountId, now, gap);
    if (!freeAt) return 0;
    return Math.max(1, freeAt.getTime() - now.getTime()) + jitter();
  }

  /** When the account's next private reply may go out (for GET /status). */
  nextAt(accountId: number): Promise<Date | null> {
    return this.repo.nextAt(accountId);
  }
}
