import type { Condition, Filter } from '../src/segments/condition';

/** The brute-force side of the segment tests: a condition evaluated contact by contact, in memory. */
export interface OracleContact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  events: Array<{ name: string; at: number }>;
  emails: Array<{ status: string; sentAt: number | null; openedAt: number | null; clickedAt: number | null; bouncedAt: number | null; complainedAt: number | null; updatedAt: number }>;
  staticSegments: string[];
}

const UNIT_MS = { days: 86_400_000, hours: 3_600_000, minutes: 60_000 };
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function matches(c: OracleContact, cond: Condition, now: number, segments: Map<string, { type: string; condition: Condition | null }>): boolean {
  const groups = cond.groups.map((g) => g.filters.every((f) => filter(c, f, now, segments)) && (!g.conditions || matches(c, g.conditions, now, segments)));
  return cond.logic === 'AND' ? groups.every(Boolean) : groups.some(Boolean);
}

function get(data: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = data;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function cmp(op: string, a: number | string, b: number | string): boolean {
  return op === 'greaterThan' ? a > b : op === 'lessThan' ? a < b : op === 'greaterThanOrEqual' ? a >= b : a <= b;
}

function trigger(op: string, times: number[], f: Filter, now: number): boolean {
  const since = now - Number(f.value) * (UNIT_MS[f.unit ?? 'days'] ?? 0);
  const any = times.length > 0;
  const recent = times.some((t) => t >= since);
  switch (op) {
    case 'triggered':
      return any;
    case 'notTriggered':
      return !any;
    case 'triggeredWithin':
      return recent;
    case 'notTriggeredWithin':
      return !recent;
    default:
      return times.some((t) => t < since) && !recent;
  }
}

function filter(c: OracleContact, f: Filter, now: number, segments: Map<string, { type: string; condition: Condition | null }>): boolean {
  const op = f.operator;
  const since = () => now - Number(f.value) * UNIT_MS[f.unit!];
  if (f.field === 'email') {
    const v = String(f.value ?? '').toLowerCase();
    if (op === 'equals') return c.email === v;
    if (op === 'notEquals') return c.email !== v;
    if (op === 'contains') return c.email.includes(v);
    if (op === 'notContains') return !c.email.includes(v);
    if (op === 'exists') return c.email !== '';
    return c.email === '';
  }
  if (f.field === 'subscribed') return op === 'equals' ? c.subscribed === f.value : c.subscribed !== f.value;
  if (f.field === 'createdAt' || f.field === 'updatedAt') {
    const t = f.field === 'createdAt' ? c.createdAt : c.updatedAt;
    if (op === 'within') return t >= since();
    if (op === 'olderThan') return t < since();
    const v = String(f.value);
    if (DAY.test(v)) {
      const start = Date.parse(`${v}T00:00:00Z`);
      const end = start + 86_400_000;
      return { equals: t >= start && t < end, notEquals: t < start || t >= end, greaterThan: t >= end, greaterThanOrEqual: t >= start, lessThan: t < start, lessThanOrEqual: t < end }[op as 'equals'];
    }
    const ts = Date.parse(v);
    return op === 'equals' ? t === ts : op === 'notEquals' ? t !== ts : cmp(op, t, ts);
  }
  if (f.field.startsWith('data.')) {
    const v = get(c.data, f.field.slice(5).split('.'));
    const present = v !== undefined && v !== null;
    if (op === 'exists') return present;
    if (op === 'notExists') return !present;
    if (op === 'within' || op === 'olderThan') {
      const ts = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : NaN;
      if (Number.isNaN(ts)) return false;
      return op === 'within' ? ts >= since() : ts < since();
    }
    if (op === 'contains' || op === 'notContains') {
      const s = text(v);
      if (s === null) return false;
      const has = s.toLowerCase().includes(String(f.value).toLowerCase());
      return op === 'contains' ? has : !has;
    }
    const want = f.value;
    if (op === 'equals' || op === 'notEquals') {
      let eq: boolean;
      if (typeof want === 'number') eq = typeof v === 'number' && v === want;
      else if (typeof want === 'boolean') eq = v === want;
      else if (DAY.test(String(want))) eq = typeof v === 'string' && v.slice(0, 10) === want;
      else eq = typeof v === 'string' && v === want;
      return op === 'equals' ? eq : present && !eq;
    }
    if (typeof want === 'number') return typeof v === 'number' && cmp(op, v, want);
    return typeof v === 'string' && cmp(op, v, String(want));
  }
  if (f.field.startsWith('event.')) {
    const name = f.field.slice(6);
    return trigger(op, c.events.filter((e) => e.name === name).map((e) => e.at), f, now);
  }
  if (f.field.startsWith('email.')) {
    const kind = f.field.slice(6);
    const list = c.emails
      .map((e) => {
        switch (kind) {
          case 'sent':
            return e.status === 'SENT' ? e.sentAt : null;
          case 'delivered':
            return e.status === 'SENT' && e.bouncedAt === null ? e.sentAt : null;
          case 'opened':
            return e.openedAt;
          case 'clicked':
            return e.clickedAt;
          case 'bounced':
            return e.bouncedAt;
          default:
            return e.complainedAt;
        }
      })
      .filter((t): t is number => t !== null);
    return trigger(op, list, f, now);
  }
  const id = f.field === 'segment' ? String(f.value) : f.field.slice(8);
  const seg = segments.get(id)!;
  const member = seg.type === 'STATIC' ? c.staticSegments.includes(id) : matches(c, seg.condition!, now, segments);
  return op === 'memberOfSegment' ? member : !member;
}
