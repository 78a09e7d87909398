import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { OutboxMessage, OutboxRelay, type OutboxRow } from '@platform/messaging';
import { DatabaseError } from 'pg';
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

/** A write waiting for the next batch, with its caller's promise. */
interface Queued {
  write: TrackWrite;
  resolve(row: TrackedRow): void;
  reject(err: unknown): void;
}

interface BatchRow extends Row {
  ord: string;
  /** The id of the write's `email.event_tracked` outbox row, written claimed for this process. */
  outbox_id: string;
}

/** Most writes in one batch statement. */
export const MAX_TRACK_BATCH = 200;
/** Batch statements running at once (each on a pooled connection of its own). */
export const TRACK_BATCHES_IN_FLIGHT = 2;
/**
 * How long a batch's outbox rows stay claimed for the process that wrote them: it publishes them
 * right after the commit (`OutboxRelay.publishClaimed`); should it stop first, the relay publishes
 * them when the claim ends.
 */
export const TRACK_EVENTS_LEASE_SECONDS = 60;

/**
 * The write of `POST /v1/track` as one statement: a chain of data-modifying CTEs upserts the
 * contact (as ContactsRepository.upsert: `subscribed` changes only when given, `data` merged, new
 * contacts subscribed unless told otherwise, double opt-in as there), inserts the event and writes the `email.event_tracked`
 * outbox row (the EmailEventTrackedData contract, built with jsonb_build_object from the contact the
 * upsert returned) — atomically, in one round trip. The outbox relay publishes the row once it is
 * committed.
 *
 * Inside an open transaction (Idempotency-Key, subscription changes, consumed events) it runs on
 * that transaction. Alone, a write that cannot change the subscription (no `subscribed`, the common
 * case) is group-committed: it joins the next batch statement (the same write for up to
 * {@link MAX_TRACK_BATCH} contacts, from arrays, as a named prepared statement: one round trip and
 * one commit for the batch), and its promise settles once that statement has committed; the batch's
 * outbox rows are written claimed for this process, which publishes them at once after the commit
 * (`OutboxRelay.publishClaimed`: no relay round claims them again). A batch
 * starts at once while fewer than {@link TRACK_BATCHES_IN_FLIGHT} run, else when one ends, with
 * every write that queued meanwhile: under load batches grow, alone a write waits for nothing. A
 * batch holds each contact once and none that a running batch writes (a contact's later write
 * waits for the next batch: a contact's writes commit in order), and it upserts in (project,
 * email) order, so that two batches never deadlock. If PostgreSQL refuses a batch, its writes are
 * retried one by one, so that one bad write fails alone (any other error, such as a lost
 * connection, fails the whole batch: it may have committed). With `subscribed`, the single
 * statement runs alone, as its own transaction.
 */
@Injectable()
export class TrackRepository {
  private text?: string;
  private batchText?: string;
  private queue: Queued[] = [];
  private inFlight = 0;
  /** The contacts of the running batches. */
  private readonly writing = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly relay: OutboxRelay,
  ) {}

  /** Runs the write in the open transaction, or else alone or in the next batch (atomic either way). */
  async track(w: TrackWrite): Promise<TrackedRow> {
    if (this.db.inTransaction) {
      const [row] = await this.db.rows<Row>(this.statement(), trackParams(w));
      this.relay.enqueued(this.db.manager); // publishes when the open transaction commits
      return tracked(row);
    }
    if (w.subscribed !== undefined) return this.alone(w);
    return new Promise<TrackedRow>((resolve, reject) => {
      this.queue.push({ write: w, resolve, reject });
      this.pump();
    });
  }

  private statement(): string {
    return (this.text ??= buildTrackStatement(this.db.schema, this.db.repository(OutboxMessage).metadata.tablePath));
  }

  /** The single statement as its own transaction. */
  private async alone(w: TrackWrite): Promise<TrackedRow> {
    const [row] = await this.db.prepared<Row>('email_track', this.statement(), trackParams(w));
    this.relay.enqueued(this.db.manager); // publishes at once
    return tracked(row);
  }

  /** Starts batches while there is room and writes wait. */
  private pump(): void {
    while (this.inFlight < TRACK_BATCHES_IN_FLIGHT && this.queue.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return; // every queued contact is being written: the next pump takes them
      const keys = batch.map((q) => contactKey(q.write));
      for (const key of keys) this.writing.add(key);
      this.inFlight++;
      void this.write(batch).finally(() => {
        for (const key of keys) this.writing.delete(key);
        this.inFlight--;
        this.pump();
      });
    }
  }

  /**
   * The next batch: the queued writes in order, at most MAX_TRACK_BATCH, each contact once and none
   * that a running batch writes (a contact's writes commit in the order they came).
   */
  private take(): Queued[] {
    const taken = new Set<string>();
    const batch: Queued[] = [];
    const rest: Queued[] = [];
    for (const q of this.queue) {
      const key = contactKey(q.write);
      if (batch.length >= MAX_TRACK_BATCH || taken.has(key) || this.writing.has(key)) {
        taken.add(key); // a later write of a contact left waiting waits too
        rest.push(q);
      } else {
        taken.add(key);
        batch.push(q);
      }
    }
    this.queue = rest;
    return batch;
  }

  /** Writes a batch in one statement and settles its promises; never rejects. */
  private async write(batch: Queued[]): Promise<void> {
    let rows: BatchRow[];
    try {
      rows = await this.db.prepared<BatchRow>('email_track_batch', (this.batchText ??= buildTrackBatchStatement(this.db.schema, this.db.repository(OutboxMessage).metadata.tablePath)), batchParams(batch.map((q) => q.write)));
    } catch (err) {
      // Only a statement PostgreSQL refused is known to have written nothing: then one by one.
      if (batch.length === 1 || !(err instanceof DatabaseError)) return batch.forEach((q) => q.reject(err));
      await Promise.all(batch.map((q) => this.alone(q.write).then(q.resolve, q.reject)));
      return;
    }
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    const events: OutboxRow[] = [];
    batch.forEach((q, i) => {
      const row = byOrd.get(i + 1);
      if (!row) return q.reject(new Error(`track batch: no row for write ${i + 1} of ${batch.length}`));
      events.push(outboxRow(q.write, row));
      q.resolve(tracked(row));
    });
    void this.relay.publishClaimed(events);
  }
}

function contactKey(w: TrackWrite): string {
  return `${w.projectId}\n${w.email}`;
}

function trackParams(w: TrackWrite): unknown[] {
  return [
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
}

/** The batch statement's parameters: one array per column, the writes in order. */
function batchParams(writes: TrackWrite[]): unknown[] {
  const column = <T>(f: (w: TrackWrite) => T) => writes.map(f);
  return [
    column((w) => w.projectId),
    column((w) => w.email),
    column((w) => w.newContactId),
    column((w) => JSON.stringify(w.patch.set)),
    column((w) => JSON.stringify(w.patch.unset)),
    column((w) => w.eventId),
    column((w) => w.name),
    column((w) => (w.properties ? JSON.stringify(w.properties) : null)),
    column((w) => w.envelope.id),
    column((w) => w.envelope.type),
    column((w) => w.envelope.source),
    column((w) => w.envelope.occurredAt),
    column((w) => w.envelope.correlationId),
    TRACK_EVENTS_LEASE_SECONDS,
  ];
}

/**
 * The outbox row a batch wrote for `w`, as the relay would read it: the EmailEventTrackedData the
 * statement's jsonb_build_object stored, built here from the same values instead of read back.
 */
function outboxRow(w: TrackWrite, row: BatchRow): OutboxRow {
  return {
    id: row.outbox_id,
    event_id: w.envelope.id,
    type: w.envelope.type,
    source: w.envelope.source,
    occurred_at: w.envelope.occurredAt,
    correlation_id: w.envelope.correlationId,
    data: { projectId: w.projectId, contactId: row.contact_id, email: row.email, event: w.name, eventId: w.eventId, properties: w.properties, contactCreated: row.inserted },
  };
}

function tracked(row: Row): TrackedRow {
  return {
    contactId: row.contact_id,
    email: row.email,
    subscribed: row.subscribed,
    contactCreated: row.inserted,
    previousSubscribed: row.previous_subscribed,
    createdAt: row.created_at,
  };
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

/**
 * {@link buildTrackStatement} for a batch of writes without `subscribed` (the subscription stays as
 * it is: only `data` and `updated_at` change on an existing contact; a new one is subscribed, or
 * `pending` with double opt-in), each contact at most once. One array per column, in the order of
 * the writes: $1 projects, $2 emails, $3 new contact ids, $4 data to set (jsonb), $5 keys to remove
 * (a jsonb array), $6 event ids, $7 event names, $8 properties (or null); the outbox envelopes: $9
 * ids, $10 types, $11 sources, $12 occurred at, $13 correlation ids; $14 the seconds the outbox rows
 * stay claimed for the writer. Answers one row per write, `ord` its position (from 1), `outbox_id`
 * its outbox row; `previous_subscribed` is the contact's state for an existing one (unchanged).
 */
export function buildTrackBatchStatement(s: string, outbox: string): string {
  const now = "date_trunc('milliseconds', now())";
  return `WITH input AS (
      SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::text[], $7::text[], $8::jsonb[],
                           $9::uuid[], $10::text[], $11::text[], $12::timestamptz[], $13::text[])
        WITH ORDINALITY AS i(project_id, email, new_id, data_set, data_unset, event_id, name, properties, envelope_id, envelope_type, source, occurred_at, correlation_id, ord)
    ),
    settings AS (
      SELECT i.ord, coalesce((SELECT o.enabled FROM ${s}.opt_in_settings o WHERE o.project_id = i.project_id), false) AS doi FROM input i
    ),
    contact AS (
      INSERT INTO ${s}.contacts AS c (id, project_id, email, subscribed, data, opt_in, confirmation_sent_at, confirmation_due_at)
      SELECT i.new_id, i.project_id, i.email, NOT st.doi, i.data_set,
             CASE WHEN st.doi THEN 'pending' END, CASE WHEN st.doi THEN ${now} END, CASE WHEN st.doi THEN ${now} END
        FROM input i JOIN settings st ON st.ord = i.ord
       ORDER BY i.project_id, i.email
      ON CONFLICT (project_id, email) DO UPDATE SET
        data = (c.data || EXCLUDED.data) - ARRAY(SELECT jsonb_array_elements_text(i.data_unset) FROM input i WHERE i.project_id = EXCLUDED.project_id AND i.email = EXCLUDED.email),
        updated_at = ${now}
      RETURNING c.id, c.project_id, c.email, c.subscribed, (xmax = 0) AS inserted
    ),
    matched AS (
      SELECT i.*, contact.id AS contact_id, contact.email AS contact_email, contact.subscribed, contact.inserted
        FROM input i JOIN contact ON contact.project_id = i.project_id AND contact.email = i.email
    ),
    event AS (
      INSERT INTO ${s}.events (id, project_id, contact_id, name, data)
      SELECT m.event_id, m.project_id, m.contact_id, m.name, m.properties FROM matched m ORDER BY m.ord
      RETURNING id, created_at
    ),
    bus AS (
      INSERT INTO ${outbox} (event_id, type, source, occurred_at, correlation_id, claimed_until, data)
      SELECT m.envelope_id, m.envelope_type, m.source, m.occurred_at, m.correlation_id, now() + make_interval(secs => $14::double precision), jsonb_build_object(
        'projectId', m.project_id::text,
        'contactId', m.contact_id,
        'email', m.contact_email,
        'event', m.name,
        'eventId', m.event_id,
        'properties', m.properties,
        'contactCreated', m.inserted)
      FROM matched m ORDER BY m.ord
      RETURNING id, event_id
    )
    SELECT m.ord, m.contact_id, m.contact_email AS email, m.subscribed, m.inserted,
           CASE WHEN m.inserted THEN NULL ELSE m.subscribed END AS previous_subscribed, event.created_at, bus.id AS outbox_id
      FROM matched m JOIN event ON event.id = m.event_id JOIN bus ON bus.event_id = m.envelope_id`;
}
