import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { InboundRow, NewInbound, UnreadableDelivery } from './inbound';

export type { InboundKind, InboundRow, NewInbound, UnreadableDelivery } from './inbound';

/** The engine's durable work queue (`inbound_events`): webhook items, reminders, reel backfills. */
@Injectable()
export class InboundRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('inbound_events');
  }

  /**
   * Stores work items, one statement whatever their number; duplicates (same platform id, already
   * stored or twice in `items`) are ignored. Answers the dedup keys of the items that were new.
   * Outside a transaction it is a prepared statement on its own commit (the webhook receiver's hot
   * path); the text is the same for any number of items, as they travel as arrays. Inside one
   * (a follow-up scheduled with its run's transition) it joins it.
   */
  async insert(items: NewInbound[]): Promise<string[]> {
    if (items.length === 0) return [];
    const text = `INSERT INTO ${this.table} (account_id, dedup_key, kind, subject, payload, next_attempt_at)
       SELECT i.account_id, i.dedup_key, i.kind, i.subject, i.payload, COALESCE(i.not_before, now())
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[]) AS i(account_id, dedup_key, kind, subject, payload, not_before)
       ON CONFLICT (dedup_key) DO NOTHING RETURNING dedup_key`;
    const values = [
      items.map((it) => it.account_id),
      items.map((it) => it.dedup_key),
      items.map((it) => it.kind),
      items.map((it) => it.subject),
      items.map((it) => JSON.stringify(it.payload)),
      items.map((it) => it.not_before?.toISOString() ?? null),
    ];
    const rows = this.db.inTransaction
      ? await this.db.rows<{ dedup_key: string }>(text, values)
      : await this.db.prepared<{ dedup_key: string }>('automation_inbound_insert', text, values);
    return rows.map((r) => r.dedup_key);
  }

  /**
   * Claims due work items, at most one per subject (the oldest due one), with a lease: another
   * replica skips them, and a crashed worker's items come back when the lease ends. The oldest due
   * item of each subject is found in one pass over the due items in (subject, id) order, however the
   * backlog is spread among people (comparing each item with the older ones of its subject grew with
   * the square of a subject's backlog: 0.7 s a claim for 6,000 items of four people, 6 ms now).
   */
  claim(now: Date, limit: number, leaseSeconds: number): Promise<InboundRow[]> {
    const t = this.table;
    return this.db.claimDue<InboundRow>({
      table: t,
      where: `${t}.processed_at IS NULL AND ${t}.next_attempt_at <= $1 AND ${t}.id IN (
                SELECT h.id FROM (
                  SELECT DISTINCT ON (p.subject) p.id, p.next_attempt_at, p.lease_until FROM ${t} p
                  WHERE p.processed_at IS NULL AND p.next_attempt_at <= $1 ORDER BY p.subject, p.id
                ) h
                WHERE h.lease_until IS NULL OR h.lease_until <= now()
                ORDER BY h.next_attempt_at, h.id LIMIT ${Number(limit)})`,
      params: [now],
      orderBy: 'next_attempt_at ASC, id ASC',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
    });
  }

  /**
   * Keeps a signed delivery the receiver could not read the way a work item that failed for good is
   * kept: kind `unreadable`, the body as its payload, the reason in `error`, `processed_at` set so
   * that no worker claims it; cleaned up with the processed items.
   */
  async keepUnreadable(delivery: UnreadableDelivery): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${this.table} (account_id, dedup_key, kind, subject, payload, processed_at, error)
       VALUES ($1, $2, 'unreadable', '', $3::jsonb, now(), $4) ON CONFLICT (dedup_key) DO NOTHING`,
      [delivery.accountId, delivery.dedupKey, JSON.stringify(delivery.body), delivery.reason],
    );
  }

  async renewLease(id: string, seconds: number): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET lease_until = now() + make_interval(secs => $2::double precision) WHERE id = $1`, [id, seconds]);
  }

  /** The item's input is stored (run created or found): a retry goes straight to processing. */
  async markApplied(id: string, runId: string | null): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET applied_at = now(), run_id = $2 WHERE id = $1`, [id, runId]);
  }

  async markProcessed(id: string, error: string | null = null): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET processed_at = now(), lease_until = NULL, error = $2 WHERE id = $1`, [id, error]);
  }

  async reschedule(id: string, at: Date, error: string | null, countAttempt: boolean): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET next_attempt_at = $2, lease_until = NULL, error = $3, attempts = attempts + $4 WHERE id = $1`, [
      id,
      at,
      error,
      countAttempt ? 1 : 0,
    ]);
  }

  /**
   * The account's work queue at `now`: items due (waiting for a worker or in hand), items scheduled
   * later (reminders, read fallbacks, retries, deferrals), the private replies among them deferred by
   * the hourly budget or the pacing, and the oldest due item's time.
   */
  async depth(accountId: number, now: Date): Promise<{ due: number; scheduled: number; deferred: number; oldest_due_at: Date | null }> {
    const row = await this.db.one<{ due: number; scheduled: number; deferred: number; oldest_due_at: Date | null }>(
      `SELECT (count(*) FILTER (WHERE next_attempt_at <= $2))::int AS due,
              (count(*) FILTER (WHERE next_attempt_at > $2))::int AS scheduled,
              (count(*) FILTER (WHERE next_attempt_at > $2 AND error LIKE 'private replies per hour used up%'))::int AS deferred,
              min(next_attempt_at) FILTER (WHERE next_attempt_at <= $2) AS oldest_due_at
         FROM ${this.table} WHERE account_id = $1 AND processed_at IS NULL`,
      [accountId, now],
    );
    return row ?? { due: 0, scheduled: 0, deferred: 0, oldest_due_at: null };
  }

  async deleteProcessed(days: number): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.table} WHERE processed_at < now() - make_interval(days => $1::int)`, [days]);
  }

  /**
   * Stores items as already processed (nothing to do for them, e.g. a recovered comment the account
   * answered itself): they hold their dedup key, so the same platform id arriving later is dropped.
   * Answers the dedup keys of the items that were new.
   */
  async keepProcessed(items: NewInbound[]): Promise<string[]> {
    if (items.length === 0) return [];
    const rows = await this.db.rows<{ dedup_key: string }>(
      `INSERT INTO ${this.table} (account_id, dedup_key, kind, subject, payload, processed_at, error)
       SELECT i.account_id, i.dedup_key, i.kind, i.subject, i.payload, now(), NULL
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) AS i(account_id, dedup_key, kind, subject, payload)
       ON CONFLICT (dedup_key) DO NOTHING RETURNING dedup_key`,
      [items.map((it) => it.account_id), items.map((it) => it.dedup_key), items.map((it) => it.kind), items.map((it) => it.subject), items.map((it) => JSON.stringify(it.payload))],
    );
    return rows.map((r) => r.dedup_key);
  }

  /** Which of `keys` are stored already. */
  async existingDedupKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.rows<{ dedup_key: string }>(`SELECT dedup_key FROM ${this.table} WHERE dedup_key = ANY($1::text[])`, [keys]);
    return new Set(rows.map((r) => r.dedup_key));
  }
}
