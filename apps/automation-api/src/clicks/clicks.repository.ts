import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { AutomationLinkClicked, OutboxMessage, type OutboxRow } from '@platform/messaging';

/** A click as the redirect stores it, before it is counted. */
export interface NewClick {
  token: string;
  at: Date;
  ip: string | null;
  userAgent: string | null;
}

/** An `automation.link_clicked` outbox row written by a counting round, claimed for its publisher (OutboxRelay.publishClaimed). */
export type ClickEvent = OutboxRow;

/** One counting round: how many clicks it counted, and the outbox rows it wrote (claimed: see `countStored`). */
export interface CountedClicks {
  counted: number;
  events: ClickEvent[];
}

/**
 * Tracked links (`click_links`, created with a run's link DM) and their clicks, in two steps:
 *
 *  - `store`: the click redirect's write — the clicks of several requests at once (the group commit
 *    of ClickWriter) inserted in one statement joined to their links, uncounted (`counted_at` NULL).
 *    A click is never lost once this committed, and the redirect is answered.
 *  - `countStored`: counts the oldest uncounted clicks, many per statement (ClickCounter): marks
 *    them counted, raises each run's `click_count` by its clicks (first `clicked_at`), tags each
 *    clicked contact `link_clicked` (source `link_clicked:YYYY-MM-DD`) where it is not tagged so
 *    already, logs an Event `link_clicked` and writes the `automation.link_clicked` outbox row of
 *    each click (the AutomationLinkClickedData contract, built with jsonb_build_object), claimed
 *    for the counter that publishes it (`OutboxRelay.publishClaimed`) — atomically: a click is
 *    counted exactly when all of these are written. The clicks are claimed
 *    `FOR UPDATE SKIP LOCKED`, so replicas count disjoint clicks, and a click stored by a replica
 *    that stopped is counted by any other.
 *
 * Both are named prepared statements (`db.prepared`), parsed and planned once per pooled
 * connection: planning them costs PostgreSQL more than running them. A statement's fixed cost is
 * most of a click's when it holds few clicks, so the redirect's statement touches two tables only
 * and the counting, which touches six, runs in rounds of up to hundreds of clicks.
 */
@Injectable()
export class ClicksRepository {
  private storeText?: string;
  private countText?: string;

  constructor(private readonly db: Database) {}

  /** The tracked link of a run's button, created once (the same token when the link is sent again). */
  async linkToken(accountId: number, automationId: number, runId: string, position: number, url: string, newToken: () => string): Promise<string> {
    const existing = await this.db.one<{ token: string }>(`SELECT token FROM ${this.schema}.click_links WHERE run_id = $1 AND position = $2 ORDER BY id LIMIT 1`, [runId, position]);
    if (existing) return existing.token;
    const token = newToken();
    await this.db.rows(`INSERT INTO ${this.schema}.click_links (token, account_id, automation_id, run_id, url, position) VALUES ($1, $2, $3, $4, $5, $6)`, [
      token,
      accountId,
      automationId,
      runId,
      url,
      position,
    ]);
    return token;
  }

  /**
   * Stores clicks (uncounted) in one statement and one commit; answers per click, in order, its
   * link's target, or null for a token that is no link (nothing stored for it).
   */
  async store(clicks: NewClick[]): Promise<Array<string | null>> {
    if (clicks.length === 0) return [];
    const rows = await this.db.prepared<{ ord: string; url: string }>('automation_click_store', (this.storeText ??= buildClickStoreStatement(this.schema)), [
      clicks.map((c) => c.token),
      clicks.map((c) => c.at),
      clicks.map((c) => c.ip),
      clicks.map((c) => c.userAgent),
    ]);
    const out: Array<string | null> = clicks.map(() => null);
    for (const row of rows) out[Number(row.ord) - 1] = row.url;
    return out;
  }

  /**
   * Counts up to `limit` stored, uncounted clicks (oldest first, none another counter holds);
   * `source` is the bus events' source. Their outbox rows are written claimed for `leaseSeconds`
   * (the relay skips them meanwhile): the caller publishes them (`OutboxRelay.publishClaimed`);
   * should it stop first, the relay publishes them when the claim ends.
   */
  async countStored(limit: number, source: string, leaseSeconds: number): Promise<CountedClicks> {
    const text = (this.countText ??= buildClickCountStatement(this.schema, this.outbox));
    const rows = await this.db.prepared<{ counted: number } & { [K in keyof ClickEvent]: ClickEvent[K] | null }>('automation_click_count', text, [
      AutomationLinkClicked.type,
      source,
      limit,
      leaseSeconds,
    ]);
    const events: ClickEvent[] = [];
    for (const row of rows) if (row.id !== null) events.push(row as ClickEvent);
    return { counted: Number(rows[0]?.counted ?? 0), events };
  }

  private get outbox(): string {
    return this.db.dataSource.getMetadata(OutboxMessage).tablePath;
  }

  private get schema(): string {
    return this.db.schema;
  }
}

/** $1 tokens, $2 times, $3 ips, $4 user agents (arrays, one element per click): answers `ord` (1-based) and url of each click whose token is a link. */
export function buildClickStoreStatement(s: string): string {
  return `WITH link AS (
      SELECT i.ord, i.at, i.ip, i.ua, l.id, l.account_id, l.url
      FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[]) WITH ORDINALITY AS i(token, at, ip, ua, ord)
      JOIN ${s}.click_links l ON l.token = i.token
    ),
    click AS (
      INSERT INTO ${s}.clicks (link_id, account_id, clicked_at, ip, user_agent)
      SELECT id, account_id, at, ip, left(ua, 500) FROM link ORDER BY ord
    )
    SELECT ord, url FROM link`;
}

/**
 * $1 event type, $2 event source, $3 clicks at most, $4 seconds the outbox rows stay claimed. Counts the oldest uncounted clicks as if one
 * after the other, in the order they were stored: each run's counter raised by its clicks (the k-th
 * click of a run in the round is its first click when the counter was k - 1 before), each clicked
 * contact not yet tagged `link_clicked` with that day's source tagged once, an Event and an outbox
 * row (a new event id) per click of a run. Runs, then contacts, are locked in key order first, so
 * that two rounds (two replicas) touching the same rows wait for one another instead of
 * deadlocking. Answers how many clicks were counted (`counted`, on every row) and the outbox rows
 * written, claimed for $4 seconds (one row with nulls when none).
 */
export function buildClickCountStatement(s: string, outbox: string): string {
  return `WITH claimed AS (
      SELECT id FROM ${s}.clicks WHERE counted_at IS NULL ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
    ),
    click AS (
      UPDATE ${s}.clicks c SET counted_at = now() FROM claimed WHERE c.id = claimed.id
      RETURNING c.id, c.link_id, c.clicked_at
    ),
    link AS (
      SELECT click.id AS click_id, click.clicked_at AS at, l.account_id, l.automation_id, l.run_id, l.url, l.position, l.token,
             row_number() OVER (PARTITION BY l.run_id ORDER BY click.id) AS k
      FROM click JOIN ${s}.click_links l ON l.id = click.link_id
    ),
    per_run AS (
      SELECT run_id, count(*)::int AS n, min(at) AS first_at, max(at) AS last_at FROM link WHERE run_id IS NOT NULL GROUP BY run_id
    ),
    run_lock AS (
      SELECT r.id FROM ${s}.runs r WHERE r.id IN (SELECT run_id FROM per_run) ORDER BY r.id FOR UPDATE
    ),
    run AS (
      UPDATE ${s}.runs r SET click_count = r.click_count + p.n, clicked_at = COALESCE(r.clicked_at, p.first_at), updated_at = now()
      FROM per_run p
      WHERE r.id = p.run_id AND (SELECT count(*) FROM run_lock) >= 0
      RETURNING r.id, r.account_id, r.automation_id, r.contact_ig_id, r.username, r.email, r.click_count - p.n AS before,
                'link_clicked:' || to_char(p.last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS contact_source
    ),
    person AS (
      SELECT c.account_id, c.ig_id, c.username, c.email, NOT (c.tags ? 'link_clicked') OR c.source IS DISTINCT FROM run.contact_source AS stale
      FROM ${s}.contacts c JOIN run ON c.account_id = run.account_id AND c.ig_id = run.contact_ig_id
    ),
    contact_lock AS (
      SELECT c.account_id, c.ig_id FROM ${s}.contacts c JOIN person p ON c.account_id = p.account_id AND c.ig_id = p.ig_id
      WHERE p.stale ORDER BY c.account_id, c.ig_id FOR UPDATE OF c
    ),
    contact AS (
      UPDATE ${s}.contacts c SET
        tags = (SELECT COALESCE(jsonb_agg(DISTINCT t), '[]'::jsonb) FROM jsonb_array_elements_text(c.tags || '["link_clicked"]'::jsonb) AS t),
        source = run.contact_source,
        updated_at = now()
      FROM run
      WHERE c.account_id = run.account_id AND c.ig_id = run.contact_ig_id AND (NOT (c.tags ? 'link_clicked') OR c.source IS DISTINCT FROM run.contact_source)
        AND (SELECT count(*) FROM contact_lock) >= 0
    ),
    event AS (
      INSERT INTO ${s}.events (account_id, kind, automation_id, run_id, username, text, ref)
      SELECT run.account_id, 'link_clicked', run.automation_id, run.id, run.username, link.url, link.token
      FROM link JOIN run ON run.id = link.run_id ORDER BY link.click_id
    ),
    bus AS (
      INSERT INTO ${outbox} (event_id, type, source, occurred_at, claimed_until, data)
      SELECT gen_random_uuid(), $1, $2, link.at, now() + make_interval(secs => $4::double precision), jsonb_build_object(
        'accountId', run.account_id::text,
        'emailPublicKey', a.email_public_key,
        'igUserId', run.contact_ig_id,
        'igUsername', COALESCE(person.username, run.username),
        'automationId', run.automation_id::text,
        'runId', run.id::text,
        'email', COALESCE(person.email, run.email),
        'linkUrl', link.url,
        'linkIndex', link.position,
        'firstClick', run.before + link.k = 1)
      FROM link JOIN run ON run.id = link.run_id JOIN ${s}.accounts a ON a.id = run.account_id
        LEFT JOIN person ON person.account_id = run.account_id AND person.ig_id = run.contact_ig_id
      ORDER BY link.click_id
      RETURNING id, event_id, type, source, occurred_at, data
    )
    SELECT (SELECT count(*) FROM click)::int AS counted, bus.id, bus.event_id, bus.type, bus.source, bus.occurred_at, bus.data
    FROM (SELECT 1) AS one LEFT JOIN bus ON true ORDER BY bus.id`;
}

