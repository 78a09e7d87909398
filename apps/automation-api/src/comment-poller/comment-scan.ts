import { graphTime, mentions } from '../engine/engine-helpers';
import type { GraphComment, GraphMedia, GraphReply } from '../graph/graph-client';

/**
 * The comment poller's pure decisions: which posts to read, which comments of a page to recover,
 * skip or leave for later, and whether a comment already has an answer from the account.
 */

/** What the poller remembers of one post between passes. */
export interface MediaMemory {
  /** `comments_count` when the post was last read completely (a post whose count is unchanged is not read again soon). */
  count?: number;
  /** When it was last read completely (epoch ms): a post is read again after REREAD_AFTER_MS whatever its count. */
  at?: number;
  /**
   * A read cut short by the request budget: continue from this cursor; `count` is the count it started
   * at, `grace` whether its first pages held comments still in their grace period.
   */
  resume?: { after: string; count: number | null; grace: boolean };
}

export type PollMemory = Record<string, MediaMemory>;

/**
 * A post whose count did not change is still read again after this long (a reply the count does not
 * show, a comment deleted while another came).
 */
export const REREAD_AFTER_MS = 3_600_000;

/**
 * Posts worth reading now, in order: those with an unfinished read first, then those whose comment
 * count changed (newest first), then those not read for REREAD_AFTER_MS. Posts without comments never.
 */
export function postsToRead(media: GraphMedia[], memory: PollMemory, now: number): GraphMedia[] {
  const resumed = media.filter((m) => memory[m.id]?.resume);
  const rest = media.filter((m) => !memory[m.id]?.resume && m.comments_count !== 0);
  const changed = rest.filter((m) => m.comments_count === undefined || memory[m.id]?.count !== m.comments_count);
  const stale = rest.filter((m) => !changed.includes(m) && now - (memory[m.id]?.at ?? 0) >= REREAD_AFTER_MS);
  return [...resumed, ...changed, ...stale];
}

/** One comment as the poller sees it: top-level, or a reply in a thread (`parent_id`). */
export interface SeenComment {
  id: string;
  media_id: string;
  text: string;
  from: { id: string; username: string | null };
  parent_id: string | null;
  /** Epoch ms. */
  at: number;
  /** The account answered it already (not necessarily through this service). */
  answered: boolean;
}

export interface PageVerdict {
  /** Between the lower bound and the grace limit, not the account's own. */
  due: SeenComment[];
  /** Younger than the grace period: left to the webhook; the post is read again next pass. */
  inGrace: number;
  /** The page reaches below the lower bound (comments come newest first): no need to read further. */
  reachedBound: boolean;
}

/**
 * Sorts a page of comments (each with its replies) into those due for recovery and those left alone.
 * `lowerBound`: the account's watermark or the lookback, whichever is later; `graceLimit`: now − grace.
 */
export function judgePage(mediaId: string, page: GraphComment[], accountIgId: string, lowerBound: number, graceLimit: number): PageVerdict {
  const due: SeenComment[] = [];
  let inGrace = 0;
  let reachedBound = false;
  for (const c of page) {
    const at = graphTime(c.timestamp);
    if (at !== null && at < lowerBound) reachedBound = true;
    const replies = c.replies?.data ?? [];
    const consider = (item: GraphReply, parent: GraphComment | null) => {
      const when = graphTime(item.timestamp);
      const fromId = item.from?.id;
      if (!fromId || fromId === accountIgId || when === null || when < lowerBound) return;
      if (when > graceLimit) {
        inGrace += 1;
        return;
      }
      const username = item.from?.username ?? (parent ? null : (c.username ?? null));
      due.push({
        id: item.id,
        media_id: mediaId,
        text: item.text ?? '',
        from: { id: fromId, username },
        parent_id: parent ? parent.id : null,
        at: when,
        answered: parent ? replyAnswered(item, when, replies, accountIgId) : replies.some((r) => r.from?.id === accountIgId),
      });
    };
    consider(c, null);
    for (const r of replies) consider(r, c);
  }
  return { due, inGrace, reachedBound };
}

/**
 * A reply in a thread is answered when a later reply in the same thread comes from the account and
 * @mentions the reply's author (the platform keeps one level of replies).
 */
function replyAnswered(reply: GraphReply, at: number, thread: GraphReply[], accountIgId: string): boolean {
  const username = reply.from?.username;
  if (!username) return false;
  return thread.some((r) => r.id !== reply.id && r.from?.id === accountIgId && (graphTime(r.timestamp) ?? at) >= at && mentions(r.text ?? '', username));
}
