import { Inject, Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import type { NewInbound } from '../engine/inbound';
import { InboundService } from '../engine/inbound.service';
import { InboundWorker } from '../engine/inbound.worker';
import { GraphApiError } from '../graph/graph-api.error';
import type { GraphMedia } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { judgePage, postsToRead, type MediaMemory, type PollMemory, type SeenComment } from './comment-scan';
import type { PassResult, PollAccountRow } from './comment-poller.repository';

/** Comments per page the poller asks for (the platform's largest page). */
export const COMMENT_PAGE = 100;

/**
 * One pass of the comment poller over one account: recovers the comments whose webhook never came.
 *
 * - At most COMMENT_POLL_MAX_REQUESTS platform requests: the newest COMMENT_POLL_POSTS posts (one
 *   request), then the comments of the posts whose `comments_count` changed since they were last read
 *   completely, or that were not read for an hour (newest first, pages of 100, stopping below the
 *   lower bound); a read cut short by the budget continues from its cursor at the next pass.
 * - A comment counts when it is not the account's own, not older than the lower bound (the account's
 *   start-date watermark or COMMENT_POLL_LOOKBACK_HOURS, whichever is later) and older than
 *   COMMENT_POLL_GRACE_SECONDS (younger ones are left to their webhook; the post is read again).
 * - The dedup is the webhook path's: a work item keyed `comment:<id>` in the engine's queue, inserted
 *   with ON CONFLICT DO NOTHING — whichever path sees a comment first stores the one record, the other
 *   finds it and does nothing. A comment that already has an answer from the account is stored as a
 *   processed item with `skipped: answered_by_account` (recorded, never answered); the others as
 *   ordinary comment items (`source: poller`) that the engine processes like a webhook's.
 */
@Injectable()
export class RecoverComments {
  constructor(
    private readonly graph: GraphService,
    private readonly inbound: InboundService,
    private readonly worker: InboundWorker,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  async execute(account: AccountEntity, row: PollAccountRow): Promise<PassResult> {
    const igId = account.ig_user_id!;
    const now = this.clock.now().getTime();
    const lowerBound = Math.max(new Date(row.since).getTime(), now - this.config.COMMENT_POLL_LOOKBACK_HOURS * 3_600_000);
    const graceLimit = now - this.config.COMMENT_POLL_GRACE_SECONDS * 1000;
    const budget = this.config.COMMENT_POLL_MAX_REQUESTS;
    const client = this.graph.client(account, 'background');
    const memory: PollMemory = row.memory ?? {};
    const next: PollMemory = {};
    const due: SeenComment[] = [];
    let requests = 0;
    let error: string | null = null;
    try {
      requests += 1;
      const media: GraphMedia[] = (await client.listMedia({ limit: this.config.COMMENT_POLL_POSTS })).data;
      // Only the posts still among the newest are remembered.
      for (const m of media) if (memory[m.id]) next[m.id] = memory[m.id];
      for (const m of postsToRead(media, memory, now)) {
        if (requests >= budget) break;
        const before = next[m.id] ?? {};
        const startCount = before.resume ? before.resume.count : (m.comments_count ?? null);
        let after = before.resume?.after;
        let grace = before.resume?.grace ?? false;
        let complete = false;
        try {
          while (requests < budget) {
            requests += 1;
            const page = await client.listComments(m.id, { limit: COMMENT_PAGE, after });
            const verdict = judgePage(m.id, page.data, igId, lowerBound, graceLimit);
            due.push(...verdict.due);
            grace ||= verdict.inGrace > 0;
            if (!page.after || verdict.reachedBound) {
              complete = true;
              break;
            }
            after = page.after;
          }
        } catch (err) {
          // A failed read starts over next pass (a stale cursor included).
          next[m.id] = before.count === undefined ? {} : { count: before.count, at: before.at };
          throw err;
        }
        next[m.id] = complete ? completed(startCount, grace, now) : { ...(before.count === undefined ? {} : { count: before.count, at: before.at }), resume: { after: after!, count: startCount, grace } };
      }
    } catch (err) {
      error = err instanceof GraphApiError ? err.detail : (err as Error).message;
    }
    const { recovered, answered } = await this.store(account, igId, due);
    return { memory: error && Object.keys(next).length === 0 ? memory : next, requests, recovered, answered, error };
  }

  /** Stores the comments nobody recorded yet: answered ones as processed, the others as work items. */
  private async store(account: AccountEntity, igId: string, due: SeenComment[]): Promise<{ recovered: number; answered: number }> {
    const unique = [...new Map(due.map((c) => [c.id, c])).values()];
    if (unique.length === 0) return { recovered: 0, answered: 0 };
    const existing = await this.inbound.existingKeys(unique.map((c) => `comment:${c.id}`));
    const fresh = unique.filter((c) => !existing.has(`comment:${c.id}`));
    const item = (c: SeenComment, extra: Record<string, unknown> = {}): NewInbound => ({
      account_id: account.id,
      dedup_key: `comment:${c.id}`,
      kind: 'comment',
      subject: `${account.id}:${c.from.id}`,
      payload: { comment_id: c.id, media_id: c.media_id, text: c.text, from: c.from, parent_id: c.parent_id, entry_id: igId, source: 'poller', ...extra },
    });
    const answered = (await this.inbound.keepProcessed(fresh.filter((c) => c.answered).map((c) => item(c, { skipped: 'answered_by_account' })))).length;
    const recovered = (await this.inbound.insert(fresh.filter((c) => !c.answered).map((c) => item(c)))).length;
    if (recovered > 0) this.worker.wake();
    return { recovered, answered };
  }
}

/** A post read completely: remembered by the count the read started at and the time, unless some comment was still in its grace period. */
function completed(startCount: number | null, grace: boolean, now: number): MediaMemory {
  return grace || startCount === null ? {} : { count: startCount, at: now };
}
