import { Inject, Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { EmailEventTracked, OutboxMessage, OutboxRelay } from '@platform/messaging';
import { SERVICE_NAME } from '@platform/platform';
import { toContact, type Contact, type ContactRow } from '../contacts/contact';
import type { Audience } from './audience';
import { ConditionError, DAY, family, validateCondition, type Condition, type Filter, type Operator, type SegmentRef } from './condition';

/** The tables and the function a compiled condition refers to (schema-qualified). */
export interface AudienceTables {
  events: string;
  emails: string;
  segmentMembers: string;
  tryTimestamp: string;
}

/** A compiled audience: an SQL boolean expression over contacts `c` and its parameters (from $2 on; $1 is the project). */
interface Compiled {
  sql: string;
  params: unknown[];
}

/**
 * The contacts of an audience (segments, campaign audiences): conditions are compiled here into one
 * SQL expression over `contacts c`, so that a count, a page or a batch is one query run by
 * PostgreSQL. Callers speak in conditions and segments; the SQL never leaves this file.
 */
@Injectable()
export class AudienceRepository {
  constructor(
    private readonly db: Database,
    private readonly relay: OutboxRelay,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
  ) {}

  private get tables(): AudienceTables {
    return {
      events: this.db.table('events'),
      emails: this.db.table('emails'),
      segmentMembers: this.db.table('segment_members'),
      tryTimestamp: this.db.table('try_timestamptz'),
    };
  }

  private get contacts(): string {
    return this.db.table('contacts');
  }

  /** Compiles the audience without running it: throws ConditionError (400) for unknown segments and cycles. */
  async check(projectId: string, audience: Audience): Promise<void> {
    await this.compile(projectId, audience);
  }

  /** One query: how many contacts of the project belong (`subscribedOnly`: subscribed ones only). */
  async count(projectId: string, audience: Audience, subscribedOnly = false): Promise<number> {
    const { sql, params } = await this.compile(projectId, audience);
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.contacts} c WHERE c.project_id = $1 AND ${sql}${subscribedOnly ? ' AND c.subscribed' : ''}`,
      [projectId, ...params],
    );
    return row!.n;
  }

  /** A page of the audience's contacts, newest first. */
  async page(projectId: string, audience: Audience, limit: number, offset: number): Promise<Contact[]> {
    const { sql, params } = await this.compile(projectId, audience);
    const rows = await this.db.rows<ContactRow>(
      `SELECT c.* FROM ${this.contacts} c WHERE c.project_id = $1 AND ${sql} ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit} OFFSET ${offset}`,
      [projectId, ...params],
    );
    return rows.map(toContact);
  }

  /** The audience's subscribed contacts after `afterId` in id order (campaign fan-out). */
  async recipients(projectId: string, audience: Audience, afterId: string | null, limit: number): Promise<Contact[]> {
    const { sql, params } = await this.compile(projectId, audience);
    const n = params.length + 2;
    const rows = await this.db.rows<ContactRow>(
      `SELECT c.* FROM ${this.contacts} c WHERE c.project_id = $1 AND ${sql} AND c.subscribed
          AND ($${n}::text IS NULL OR c.id > $${n}) ORDER BY c.id LIMIT ${limit}`,
      [projectId, ...params, afterId],
    );
    return rows.map(toContact);
  }

  /**
   * One batch of a tracked segment's recompute: the next `limit` contacts after `afterId`, members
   * entering and leaving, their `segment.<slug>.entry|exit` events and, for each event, its
   * `email.event_tracked` outbox row (the EmailEventTrackedData contract, as `/v1/track` writes
   * it), in one statement: the bus sees exactly the committed events.
   */
  async computeBatch(
    projectId: string,
    segment: { id: string; slug: string; name: string; condition: Condition },
    afterId: string | null,
    limit: number,
    correlationId: string | null = null,
  ): Promise<{ last: string | null; added: number; removed: number }> {
    const audience = await this.compile(projectId, { kind: 'condition', condition: segment.condition, selfId: segment.id });
    const base = audience.params.length + 2;
    const [after, segId, entryName, exitName, data, type, source, correlation] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `$${base + i}`);
    const outbox = this.db.repository(OutboxMessage).metadata.tablePath;
    const members = this.tables.segmentMembers;
    const events = this.tables.events;
    const eventId = `'evt_' || substr(md5(random()::text || clock_timestamp()::text || contact_id), 1, 20)`;
    const row = await this.db.one<{ last: string | null; added: number; removed: number }>(
      `WITH batch AS (
         SELECT c.id, coalesce(${audience.sql}, false) AS m FROM ${this.contacts} c
          WHERE c.project_id = $1 AND (${after}::text IS NULL OR c.id > ${after}) ORDER BY c.id LIMIT ${limit}),
       entered AS (
         INSERT INTO ${members} (segment_id, contact_id) SELECT ${segId}::uuid, id FROM batch WHERE m
         ON CONFLICT (segment_id, contact_id) DO UPDATE SET entered_at = now(), exited_at = NULL WHERE ${members}.exited_at IS NOT NULL
         RETURNING contact_id),
       exited AS (
         UPDATE ${members} sm SET exited_at = now() FROM batch b
          WHERE sm.segment_id = ${segId}::uuid AND sm.contact_id = b.id AND NOT b.m AND sm.exited_at IS NULL RETURNING sm.contact_id),
       ev AS (
         INSERT INTO ${events} (id, project_id, contact_id, name, data)
         SELECT ${eventId}, $1, contact_id, ${entryName}, ${data}::jsonb FROM entered
         UNION ALL
         SELECT ${eventId}, $1, contact_id, ${exitName}, ${data}::jsonb FROM exited
         RETURNING id, contact_id, name, data),
       bus AS (
         INSERT INTO ${outbox} (event_id, type, source, occurred_at, correlation_id, data)
         SELECT gen_random_uuid(), ${type}::text, ${source}::text, now(), ${correlation}::text, jsonb_build_object(
           'projectId', c.project_id::text, 'contactId', ev.contact_id, 'email', c.email, 'event', ev.name,
           'eventId', ev.id, 'properties', ev.data, 'contactCreated', false)
           FROM ev JOIN ${this.contacts} c ON c.id = ev.contact_id
         RETURNING 1)
       SELECT (SELECT max(id) FROM batch) AS last, (SELECT count(*)::int FROM entered) AS added, (SELECT count(*)::int FROM exited) AS removed, (SELECT count(*) FROM bus) AS events`,
      [
        projectId,
        ...audience.params,
        afterId,
        segment.id,
        `segment.${segment.slug}.entry`,
        `segment.${segment.slug}.exit`,
        JSON.stringify({ segmentId: segment.id, segmentName: segment.name }),
        EmailEventTracked.type,
        this.serviceName,
        correlationId,
      ],
    );
    this.relay.enqueued(this.db.manager); // publishes once the batch's transaction commits
    return { last: row!.last, added: row!.added, removed: row!.removed };
  }

  /** How many contacts the project has (a segment recompute visits each once). */
  async projectContacts(projectId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.contacts} WHERE project_id = $1`, [projectId]);
    return row!.n;
  }

  /** Validates and compiles (the project's segments referenced by the condition; cycles give 400). */
  private async compile(projectId: string, audience: Audience): Promise<Compiled> {
    if (audience.kind === 'all') return { sql: 'TRUE', params: [] };
    const condition = audience.kind === 'condition' ? audience.condition : audience.segment.condition;
    const compiler = new ConditionCompiler(this.tables, await this.referenced(projectId, condition ? validateCondition(condition).segments : []));
    // $1 is the project id in every query: the condition's parameters start at $2.
    const params: unknown[] = [null];
    const sql =
      audience.kind === 'condition'
        ? compiler.compile(audience.condition, params, audience.selfId ? [audience.selfId] : [])
        : compiler.membership(audience.segment, params);
    return { sql, params: params.slice(1) };
  }

  /** The project's segments when a condition references any (their conditions may reference others). */
  private async referenced(projectId: string, refs: string[]): Promise<Map<string, SegmentRef>> {
    const map = new Map<string, SegmentRef>();
    if (!refs.length) return map;
    const rows = await this.db.rows<SegmentRef>(`SELECT id, type, condition FROM ${this.db.table('segments')} WHERE project_id = $1`, [projectId]);
    for (const s of rows) map.set(s.id, { id: s.id, type: s.type, condition: s.condition });
    return map;
  }
}

/**
 * Compiles a condition into one SQL boolean expression over the contacts row `c` (parameters
 * appended to `params`), so that a count or a page is one query run by PostgreSQL.
 */
export class ConditionCompiler {
  constructor(
    private readonly tables: AudienceTables,
    private readonly segments: Map<string, SegmentRef>,
  ) {}

  compile(condition: Condition, params: unknown[], stack: string[] = []): string {
    const groups = condition.groups.map((g) => {
      const parts = g.filters.map((f) => this.filter(f, params, stack));
      if (g.conditions) parts.push(this.compile(g.conditions, params, stack));
      return parts.length ? `(${parts.join(' AND ')})` : 'TRUE';
    });
    return `(${groups.join(condition.logic === 'AND' ? ' AND ' : ' OR ')})`;
  }

  /** Membership of a segment as an expression over `c`. */
  membership(segment: SegmentRef, params: unknown[], stack: string[] = []): string {
    if (stack.includes(segment.id)) throw new ConditionError(`Segments reference each other in a cycle: ${[...stack, segment.id].join(' → ')}`);
    if (segment.type === 'STATIC') {
      return `EXISTS (SELECT 1 FROM ${this.tables.segmentMembers} sm WHERE sm.segment_id = ${p(params, segment.id)}::uuid AND sm.contact_id = c.id AND sm.exited_at IS NULL)`;
    }
    return this.compile(segment.condition!, params, [...stack, segment.id]);
  }

  private filter(f: Filter, params: unknown[], stack: string[]): string {
    const fam = family(f.field);
    const op = f.operator;
    const interval = () => `make_interval(${f.unit === 'days' ? 'days' : f.unit === 'hours' ? 'hours' : 'mins'} => ${p(params, Math.round(Number(f.value)))}::int)`;
    switch (fam) {
      case 'email':
        return textOp('c.email', op, f.value, params);
      case 'subscribed':
        return op === 'equals' ? `c.subscribed = ${p(params, f.value)}::boolean` : `c.subscribed <> ${p(params, f.value)}::boolean`;
      case 'date': {
        const col = f.field === 'createdAt' ? 'c.created_at' : 'c.updated_at';
        return dateOp(col, op, f.value, params, interval);
      }
      case 'data': {
        const path = p(params, f.field.slice(5).split('.'));
        const json = `(c.data #> ${path}::text[])`;
        const text = `(c.data #>> ${path}::text[])`;
        if (op === 'exists') return `${json} IS NOT NULL AND ${json} <> 'null'::jsonb`;
        if (op === 'notExists') return `(${json} IS NULL OR ${json} = 'null'::jsonb)`;
        if (op === 'within' || op === 'olderThan') {
          const ts = `${this.tables.tryTimestamp}(${text})`;
          return op === 'within' ? `${ts} >= now() - ${interval()}` : `${ts} < now() - ${interval()}`;
        }
        if (op === 'contains' || op === 'notContains') {
          const like = `${text} ILIKE ${p(params, `%${escapeLike(String(f.value))}%`)}`;
          return op === 'contains' ? `coalesce(${like}, false)` : `(${text} IS NOT NULL AND NOT ${like})`;
        }
        const v = f.value;
        if (op === 'equals' || op === 'notEquals') {
          let eq: string;
          if (typeof v === 'number') eq = `(jsonb_typeof(${json}) = 'number' AND ${text}::numeric = ${p(params, v)}::numeric)`;
          else if (typeof v === 'boolean') eq = `(${json} = ${p(params, JSON.stringify(v))}::jsonb)`;
          else if (DAY.test(String(v))) eq = `(jsonb_typeof(${json}) = 'string' AND left(${text}, 10) = ${p(params, v)})`;
          else eq = `(jsonb_typeof(${json}) = 'string' AND ${text} = ${p(params, v)})`;
          return op === 'equals' ? `coalesce(${eq}, false)` : `(${json} IS NOT NULL AND ${json} <> 'null'::jsonb AND NOT coalesce(${eq}, false))`;
        }
        const cmp = { greaterThan: '>', lessThan: '<', greaterThanOrEqual: '>=', lessThanOrEqual: '<=' }[op as 'greaterThan'];
        if (typeof v === 'number') return `coalesce(jsonb_typeof(${json}) = 'number' AND ${text}::numeric ${cmp} ${p(params, v)}::numeric, false)`;
        return `coalesce(jsonb_typeof(${json}) = 'string' AND ${text} COLLATE "C" ${cmp} ${p(params, v)}::text COLLATE "C", false)`;
      }
      case 'event': {
        const name = p(params, f.field.slice(6));
        const any = (extra = '') => `EXISTS (SELECT 1 FROM ${this.tables.events} ev WHERE ev.contact_id = c.id AND ev.name = ${name}${extra})`;
        return triggerOp(op, any, 'ev.created_at', interval);
      }
      case 'activity': {
        const kind = f.field.slice(6);
        const column = { sent: 'em.sent_at', delivered: 'em.sent_at', opened: 'em.opened_at', clicked: 'em.clicked_at', bounced: 'em.bounced_at', complained: 'em.complained_at' }[kind]!;
        const where = {
          sent: `em.status = 'SENT'`,
          delivered: `em.status = 'SENT' AND em.bounced_at IS NULL`,
          opened: 'em.opened_at IS NOT NULL',
          clicked: 'em.clicked_at IS NOT NULL',
          bounced: 'em.bounced_at IS NOT NULL',
          complained: 'em.complained_at IS NOT NULL',
        }[kind]!;
        const any = (extra = '') => `EXISTS (SELECT 1 FROM ${this.tables.emails} em WHERE em.contact_id = c.id AND ${where}${extra})`;
        return triggerOp(op, any, column, interval);
      }
      case 'segment': {
        const id = (f.field === 'segment' ? String(f.value) : f.field.slice(8)).toLowerCase();
        const ref = this.segments.get(id);
        if (!ref) throw new ConditionError(`Segment ${id} does not exist in this project`);
        const member = this.membership(ref, params, stack);
        return op === 'memberOfSegment' ? `coalesce(${member}, false)` : `NOT coalesce(${member}, false)`;
      }
    }
    throw new ConditionError(`Unknown field ${f.field}`);
  }
}

function p(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function textOp(col: string, op: Operator, value: unknown, params: unknown[]): string {
  switch (op) {
    case 'equals':
      return `${col} = lower(${p(params, value)})`;
    case 'notEquals':
      return `${col} <> lower(${p(params, value)})`;
    case 'contains':
      return `${col} ILIKE ${p(params, `%${escapeLike(String(value))}%`)}`;
    case 'notContains':
      return `${col} NOT ILIKE ${p(params, `%${escapeLike(String(value))}%`)}`;
    case 'exists':
      return `${col} <> ''`;
    default:
      return `${col} = ''`;
  }
}

function dateOp(col: string, op: Operator, value: unknown, params: unknown[], interval: () => string): string {
  if (op === 'within') return `${col} >= now() - ${interval()}`;
  if (op === 'olderThan') return `${col} < now() - ${interval()}`;
  const v = String(value);
  if (DAY.test(v)) {
    // A day: the whole UTC day.
    const start = `${p(params, `${v}T00:00:00Z`)}::timestamptz`;
    const end = `(${start} + interval '1 day')`;
    switch (op) {
      case 'equals':
        return `(${col} >= ${start} AND ${col} < ${end})`;
      case 'notEquals':
        return `(${col} < ${start} OR ${col} >= ${end})`;
      case 'greaterThan':
        return `${col} >= ${end}`;
      case 'greaterThanOrEqual':
        return `${col} >= ${start}`;
      case 'lessThan':
        return `${col} < ${start}`;
      default:
        return `${col} < ${end}`;
    }
  }
  const ts = `${p(params, new Date(v).toISOString())}::timestamptz`;
  const cmp = { equals: '=', notEquals: '<>', greaterThan: '>', lessThan: '<', greaterThanOrEqual: '>=', lessThanOrEqual: '<=' }[op as 'equals'];
  return `${col} ${cmp} ${ts}`;
}

function triggerOp(op: Operator, any: (extra?: string) => string, column: string, interval: () => string): string {
  switch (op) {
    case 'triggered':
      return any();
    case 'notTriggered':
      return `NOT ${any()}`;
    case 'triggeredWithin':
      return any(` AND ${column} >= now() - ${interval()}`);
    case 'notTriggeredWithin':
      return `NOT ${any(` AND ${column} >= now() - ${interval()}`)}`;
    default: {
      // triggeredOlderThan: it happened, and not since then.
      const i = interval();
      return `(${any(` AND ${column} < now() - ${i}`)} AND NOT ${any(` AND ${column} >= now() - ${i}`)})`;
    }
  }
}
