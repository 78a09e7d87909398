import { parseConditionField, type ConditionConfig, type MailFact } from '../step-config';

/** What a CONDITION step can read about one execution. */
export interface ConditionFacts {
  contact: { email: string; subscribed: boolean; data: Record<string, unknown> };
  /** The triggering event's data (a manual start: its `context`). */
  event: Record<string, unknown>;
  /** Per SEND_EMAIL step id of this execution: whether its mail was opened / clicked by a person. */
  mail: Map<string, Record<MailFact, boolean>>;
}

/** The step ids whose mail facts a condition needs (empty: no mail facts to load). */
export function mailStepsOf(config: ConditionConfig): string[] {
  const field = parseConditionField(config.field);
  return field?.kind === 'mail' ? [field.stepId] : [];
}

/** The value a field names, undefined when missing. */
export function fieldValue(config: ConditionConfig, facts: ConditionFacts): unknown {
  const field = parseConditionField(config.field);
  if (!field) return undefined;
  switch (field.kind) {
    case 'contact':
      return facts.contact[field.name];
    case 'data':
      return dig(facts.contact.data, field.path);
    case 'event':
      return dig(facts.event, field.path);
    case 'mail':
      // a mail not sent (yet) by this execution was neither opened nor clicked
      return facts.mail.get(field.stepId)?.[field.fact] ?? false;
  }
}

function dig(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

const missing = (v: unknown) => v === undefined || v === null;

/** A number from a number or a numeric string; null otherwise. */
function asNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** Milliseconds of an ISO 8601 date string (at least `YYYY-MM-DD`); null otherwise. */
function asDate(v: unknown): number | null {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v)) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

/** Equality of scalars: a number and a numeric string compare as numbers, strings exactly, booleans also as "true"/"false". */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== null && nb !== null && (typeof a === 'number' || typeof b === 'number')) return na === nb;
  if (typeof a === 'boolean' && typeof b === 'string') return String(a) === b;
  if (typeof b === 'boolean' && typeof a === 'string') return String(b) === a;
  return false;
}

function contains(haystack: unknown, needle: unknown): boolean {
  if (Array.isArray(haystack)) return haystack.some((item) => same(item, needle) || (typeof item === 'string' && typeof needle === 'string' && item.toLowerCase() === needle.toLowerCase()));
  if (typeof haystack === 'string' && typeof needle === 'string') return haystack.toLowerCase().includes(needle.toLowerCase());
  return false;
}

/** -1, 0, 1, or null when the two cannot be ordered (numbers as numbers, ISO dates as dates, else strings). */
function compare(a: unknown, b: unknown): number | null {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== null && nb !== null) return Math.sign(na - nb);
  const da = asDate(a);
  const db = asDate(b);
  if (da !== null && db !== null) return Math.sign(da - db);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

/**
 * Evaluates a CONDITION step: true takes the `yes` branch, false the `no` branch. Rules (as the
 * segment conditions): a missing field (absent or null) matches only `not_exists` — never a negated
 * (`not_equals`, `not_contains`) or comparing operator; numbers compare as numbers (a numeric string
 * too), ISO 8601 dates as dates, other strings bytewise; `contains` is case-insensitive on strings and
 * means "has this element" on arrays; `in` is true when the value equals one of the listed ones.
 */
export function evaluateCondition(config: ConditionConfig, facts: ConditionFacts): boolean {
  const value = fieldValue(config, facts);
  const expected = config.value;
  switch (config.operator) {
    case 'exists':
      return !missing(value);
    case 'not_exists':
      return missing(value);
    default:
      if (missing(value)) return false;
  }
  switch (config.operator) {
    case 'equals':
      return same(value, expected);
    case 'not_equals':
      return !same(value, expected);
    case 'contains':
      return contains(value, expected);
    case 'not_contains':
      return !contains(value, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((e) => same(value, e));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const c = compare(value, expected);
      if (c === null) return false;
      return config.operator === 'gt' ? c > 0 : config.operator === 'gte' ? c >= 0 : config.operator === 'lt' ? c < 0 : c <= 0;
    }
    default:
      return false;
  }
}
