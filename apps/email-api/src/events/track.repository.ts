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
 * contacts subscribed unless told otherwise), inserts the event and writes the `email.event_tracked`
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
  return `WITH previous AS (
      SELECT subscribed FROM ${s}.contacts WHERE project_id = $1::uuid AND email = $2::text
    ),
    contact AS (
      INSERT INTO ${s}.contacts AS c (id, project_id, email, subscribed, data)
      VALUES ($3::text, $1::uuid, $2::text, coalesce($4::boolean, true), $5::jsonb)
      ON CONFLICT (project_id, email) DO UPDATE SET
        subscribed = coalesce($4::boolean, c.subscribed),
        data = (c.data || $5::jsonb) - $6::text[],
        updated_at = date_trunc('milliseconds', now())
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
