import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { OutboxMessage, OutboxRelay } from '@platform/messaging';
import type { DataPatch } from '../contacts/contact';

/** One tracked event as the statement writes it. */
export interface TrackWrite {
  projectId: string;
  /** Normalized (lower-case, trimmed). */
  email: string;
  /** Id of the contact if this creates it (`cnt_…`). */
  newContactId: string;
  /** Given: the contact's new state; undefined: new contacts are subscribed, existing ones keep theirs. */
  subscribed: boolean | undefined;
  /** How the contact's custom fields change. */
  patch: DataPatch;
  eventId: string;
  name: string;
  /** The event's properties, also those of the bus event; null when there are none. */
  properties: Record<string, unknown> | null;
  /** The `email.event_tracked` outbox row's envelope. */
  envelope: { id: string; type: string; source: string; occurredAt: Date; correlationId: string | null };
}

export interface TrackedRow {
  contactId: string;
  email: string;
  subscribed: boolean;
  contactCreated: boolean;
  /** The subscription state before the change (null for a new contact). */
  previousSubscribed: boolean | null;
  /** The stored event's `created_at`. */
  createdAt: Date;
}

interface Row {
  contact_id: string;
  email: string;
  subscribed: boolean;
  inserted: boolean;
  previous_subscribed: boolean | null;
  created_at: Date;
}

/**
 * The write of `POST /v1/track` as one statement: a chain of data-modifying CTEs upserts the
 * contact (as ContactsRepository.upsert: `subscribed` changes only when given, `data` merged, new
 * contacts subscribed unless told otherwise, double opt-in as there), inserts the event and writes the `email.event_tracked`
 * outbox row (the EmailEventTrackedData contract, built with jsonb_build_object from the contact the
 * upsert returned) — atomically, in one round trip. Run alone it is its own transaction (one
 * commit, no BEGIN/COMMIT round trips) as a named prepared statement; inside an open transaction
 * (Idempotency-Key, subscription changes, consumed events) it runs on that transaction. The outbox
 * relay publishes the row once it is committed.
 */
@Injectable()
export class TrackRepository {
  private text?: string;

  constructor(
    private readonly db: Database,
    private readonly relay: OutboxRelay,
  ) {}

  /** Runs the write in the open transaction, or alone (atomic by itself) when there is none. */
  async track(w: TrackWrite): Promise<TrackedRow> {
    const params = [
      w.projectId,
      w.email,
      w.newContactId,
      w.subscribed ?? null,
      JSON.stringify(w.patch.set),
      w.patch.unset,
      w.eventId,
      w.name,
      w.properties ? JSON.stringify(w.properties) : null,
      w.envelope.id,
      w.envelope.type,
      w.envelope.source,
      w.envelope.occurredAt,
      w.envelope.correlationId,
    ];
    const text = (this.text ??= buildTrackStatement(this.db.schema, this.db.repository(OutboxMessage).metadata.tablePath));
    const [row] = this.db.inTransaction ? await this.db.rows<Row>(text, params) : await this.db.prepared<Row>('email_track', text, params);
    this.relay.enqueued(this.db.manager); // publishes at once, or when the open transaction commits
    return {
      contactId: row.contact_id,
      email: row.email,
      subscribed: row.subscribed,
      contactCreated: row.inserted,
      previousSubscribed: row.previous_subscribed,
      createdAt: row.created_at,
    };
  }
}

/**
 * $1 project, $2 email, $3 new contact id, $4 subscribed (or null), $5 data to set, $6 keys to
 * remove, $7 event id, $8 event name, $9 properties (or null); the outbox envelope: $10 id, $11 type,
 * $12 source, $13 occurred at, $14 correlation id. `previous` reads the subscription state before
 * the upsert (null for a new contact), so that the caller can record a change.
 */
export function buildTrackStatement(s: string, outbox: string): string {
  // Double opt-in, as ContactsRepository's upsert: a signup (a new contact without `subscribed:
  // false`, or `subscribed: true` for an unsubscribed one) in a project with double opt-in makes the
  // contact `pending` instead of subscribed and marks a confirmation mail due unless one was asked
  // for in the last 24 hours (decided under the row lock: parallel signups ask once); the opt-in
  // feature's worker queues the mail. A subscribed contact is never changed by a signup.
  const sub = '$4::boolean';
  const doi = '(SELECT doi FROM settings)';
  const signup = `(${sub} AND NOT c.subscribed)`;
  const asks = `(${signup} AND ${doi} AND (c.confirmation_sent_at IS NULL OR c.confirmation_sent_at <= now() - interval '1 day'))`;
  const now = "date_trunc('milliseconds', now())";
  return `WITH previous AS (
      SELECT subscribed FROM ${s}.contacts WHERE project_id = $1::uuid AND email = $2::text
    ),
    settings AS (
      SELECT coalesce((SELECT enabled FROM ${s}.opt_in_settings WHERE project_id = $1::uuid), false) AS doi
    ),
    contact AS (
      INSERT INTO ${s}.contacts AS c (id, project_id, email, subscribed, data, opt_in, confirmation_sent_at, confirmation_due_at)
      SELECT $3::text, $1::uuid, $2::text, coalesce(${sub}, true) AND NOT settings.doi, $5::jsonb,
             CASE WHEN coalesce(${sub}, true) AND settings.doi THEN 'pending' END,
             CASE WHEN coalesce(${sub}, true) AND settings.doi THEN ${now} END,
             CASE WHEN coalesce(${sub}, true) AND settings.doi THEN ${now} END
        FROM settings
      ON CONFLICT (project_id, email) DO UPDATE SET
        subscribed = CASE WHEN ${sub} IS NULL THEN c.subscribed WHEN ${sub} AND ${doi} THEN c.subscribed ELSE ${sub} END,
        opt_in = CASE WHEN ${sub} IS NULL OR (${sub} AND c.subscribed) THEN c.opt_in WHEN NOT ${sub} THEN NULL WHEN ${doi} THEN 'pending' ELSE NULL END,
        confirmation_sent_at = CASE WHEN ${asks} THEN ${now} ELSE c.confirmation_sent_at END,
        confirmation_due_at = CASE WHEN ${asks} THEN ${now} WHEN NOT ${sub} THEN NULL ELSE c.confirmation_due_at END,
        data = (c.data || $5::jsonb) - $6::text[],
        updated_at = ${now}
      RETURNING c.id, c.email, c.subscribed, (xmax = 0) AS inserted
    ),
    event AS (
      INSERT INTO ${s}.events (id, project_id, contact_id, name, data)
      SELECT $7::text, $1::uuid, contact.id, $8::text, $9::jsonb FROM contact
      RETURNING created_at
    ),
    bus AS (
      INSERT INTO ${outbox} (event_id, type, source, occurred_at, correlation_id, data)
      SELECT $10::uuid, $11::text, $12::text, $13::timestamptz, $14::text, jsonb_build_object(
        'projectId', $1::uuid::text,
        'contactId', contact.id,
        'email', contact.email,
        'event', $8::text,
        'eventId', $7::text,
        'properties', $9::jsonb,
        'contactCreated', contact.inserted)
      FROM contact
    )
    SELECT contact.id AS contact_id, contact.email, contact.subscribed, contact.inserted,
           CASE WHEN contact.inserted THEN NULL ELSE (SELECT subscribed FROM previous) END AS previous_subscribed,
           event.created_at
      FROM contact CROSS JOIN event`;
}
