import { ApiError } from '@platform/errors';

/** A segment condition (also a campaign's FILTERED audience). */
export interface Condition {
  logic: 'AND' | 'OR';
  groups: ConditionGroup[];
}
export interface ConditionGroup {
  /** ANDed together (and with `conditions`). */
  filters: Filter[];
  conditions?: Condition;
}
export interface Filter {
  field: string;
  operator: Operator;
  value?: unknown;
  unit?: 'days' | 'hours' | 'minutes';
}

export const OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'greaterThan',
  'lessThan',
  'greaterThanOrEqual',
  'lessThanOrEqual',
  'exists',
  'notExists',
  'within',
  'olderThan',
  'triggered',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggered',
  'notTriggeredWithin',
  'memberOfSegment',
  'notMemberOfSegment',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const EMAIL_ACTIVITIES = ['opened', 'clicked', 'bounced', 'complained', 'sent', 'delivered'] as const;

/** Field families and the operators each takes. */
const VALUE_OPS: Operator[] = ['equals', 'notEquals', 'contains', 'notContains', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual', 'exists', 'notExists', 'within', 'olderThan'];
const TRIGGER_OPS: Operator[] = ['triggered', 'triggeredWithin', 'triggeredOlderThan', 'notTriggered', 'notTriggeredWithin'];
const FAMILY_OPS: Record<string, Operator[]> = {
  email: ['equals', 'notEquals', 'contains', 'notContains', 'exists', 'notExists'],
  subscribed: ['equals', 'notEquals'],
  date: ['equals', 'notEquals', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual', 'within', 'olderThan'],
  data: VALUE_OPS,
  event: TRIGGER_OPS,
  activity: TRIGGER_OPS,
  segment: ['memberOfSegment', 'notMemberOfSegment'],
};
const TIME_OPS = new Set<Operator>(['within', 'olderThan', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin']);
const MAX_DEPTH = 5;
const MAX_FILTERS = 100;
/** A calendar day (`YYYY-MM-DD`): compared as the whole UTC day. */
export const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DATA_PATH = /^[A-Za-z0-9_-]{1,100}(\.[A-Za-z0-9_-]{1,100}){0,4}$/;

export class ConditionError extends ApiError {
  constructor(message: string) {
    super(400, 'INVALID_CONDITION', message, { suggestion: 'A condition is {logic: "AND"|"OR", groups: [{filters: [{field, operator, value?, unit?}], conditions?}]}; see the Segments section of the API description.' });
  }
}

/** The family of a filter's field (email, subscribed, date, data, event, activity, segment); unknown fields throw. */
export function family(field: string): string {
  if (field === 'email') return 'email';
  if (field === 'subscribed') return 'subscribed';
  if (field === 'createdAt' || field === 'updatedAt') return 'date';
  if (field.startsWith('data.')) return 'data';
  if (field.startsWith('event.')) return 'event';
  if (field.startsWith('email.')) return 'activity';
  if (field === 'segment' || field.startsWith('segment.')) return 'segment';
  throw new ConditionError(`Unknown field "${field}": use email, subscribed, createdAt, updatedAt, data.<path>, event.<name>, email.<${EMAIL_ACTIVITIES.join('|')}> or segment.<id>`);
}

/** Checks the shape (every field family and operator) and returns the segment ids it references. */
export function validateCondition(input: unknown, path = 'condition', depth = 0, counter = { filters: 0 }): { segments: string[] } {
  const segments: string[] = [];
  if (depth > MAX_DEPTH) throw new ConditionError(`${path}: conditions nest at most ${MAX_DEPTH} levels`);
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new ConditionError(`${path} must be an object {logic, groups}`);
  const c = input as Record<string, unknown>;
  for (const key of Object.keys(c)) if (key !== 'logic' && key !== 'groups') throw new ConditionError(`${path}.${key} is not a condition property`);
  if (c.logic !== 'AND' && c.logic !== 'OR') throw new ConditionError(`${path}.logic must be AND or OR`);
  if (!Array.isArray(c.groups) || c.groups.length === 0) throw new ConditionError(`${path}.groups must be a non-empty array`);
  c.groups.forEach((g, gi) => {
    const gp = `${path}.groups[${gi}]`;
    if (!g || typeof g !== 'object' || Array.isArray(g)) throw new ConditionError(`${gp} must be an object {filters, conditions?}`);
    const group = g as Record<string, unknown>;
    for (const key of Object.keys(group)) if (key !== 'filters' && key !== 'conditions') throw new ConditionError(`${gp}.${key} is not a group property`);
    if (!Array.isArray(group.filters)) throw new ConditionError(`${gp}.filters must be an array`);
    if (group.filters.length === 0 && group.conditions === undefined) throw new ConditionError(`${gp} needs filters or conditions`);
    group.filters.forEach((f, fi) => {
      const fp = `${gp}.filters[${fi}]`;
      if (++counter.filters > MAX_FILTERS) throw new ConditionError(`a condition holds at most ${MAX_FILTERS} filters`);
      if (!f || typeof f !== 'object' || Array.isArray(f)) throw new ConditionError(`${fp} must be an object {field, operator, value?, unit?}`);
      const filter = f as Record<string, unknown>;
      for (const key of Object.keys(filter)) if (!['field', 'operator', 'value', 'unit'].includes(key)) throw new ConditionError(`${fp}.${key} is not a filter property`);
      if (typeof filter.field !== 'string') throw new ConditionError(`${fp}.field must be a string`);
      const fam = family(filter.field);
      if (!OPERATORS.includes(filter.operator as Operator)) throw new ConditionError(`${fp}.operator must be one of ${OPERATORS.join(', ')}`);
      const op = filter.operator as Operator;
      if (!FAMILY_OPS[fam].includes(op)) throw new ConditionError(`${fp}: ${filter.field} takes ${FAMILY_OPS[fam].join(', ')}, not ${op}`);
      if (fam === 'data' && !DATA_PATH.test(filter.field.slice(5))) throw new ConditionError(`${fp}.field: data paths are 1 to 5 keys of letters, digits, _ or -`);
      if (fam === 'event' && !/^event\..{1,200}$/.test(filter.field)) throw new ConditionError(`${fp}.field: event.<name>`);
      if (fam === 'activity' && !EMAIL_ACTIVITIES.includes(filter.field.slice(6) as never)) throw new ConditionError(`${fp}.field: email.<${EMAIL_ACTIVITIES.join('|')}>`);
      if (TIME_OPS.has(op)) {
        if (!['days', 'hours', 'minutes'].includes(filter.unit as string)) throw new ConditionError(`${fp}.unit must be days, hours or minutes for ${op}`);
        if (typeof filter.value !== 'number' || !Number.isFinite(filter.value) || filter.value < 0 || filter.value > 1_000_000) throw new ConditionError(`${fp}.value must be a non-negative number (of ${filter.unit})`);
      } else if (fam === 'segment') {
        const id = filter.field === 'segment' ? filter.value : filter.field.slice(8);
        if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/i.test(id)) throw new ConditionError(`${fp}: name the segment as segment.<id> (or field "segment" with the id as value)`);
        segments.push(id.toLowerCase());
      } else if (['exists', 'notExists', 'triggered', 'notTriggered'].includes(op)) {
        if (filter.value !== undefined && filter.value !== null) throw new ConditionError(`${fp}.value is not used by ${op}`);
      } else if (fam === 'subscribed') {
        if (typeof filter.value !== 'boolean') throw new ConditionError(`${fp}.value must be true or false`);
      } else if (fam === 'date') {
        if (typeof filter.value !== 'string' || Number.isNaN(Date.parse(filter.value))) throw new ConditionError(`${fp}.value must be a date (YYYY-MM-DD) or an ISO 8601 timestamp`);
      } else if (['contains', 'notContains'].includes(op) || fam === 'email') {
        if (typeof filter.value !== 'string' || filter.value.length === 0 || filter.value.length > 1000) throw new ConditionError(`${fp}.value must be a string of 1 to 1000 characters`);
      } else if (['greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'].includes(op)) {
        if (!(typeof filter.value === 'number' && Number.isFinite(filter.value)) && typeof filter.value !== 'string') throw new ConditionError(`${fp}.value must be a number or a string`);
      } else if (!['string', 'number', 'boolean'].includes(typeof filter.value) || (typeof filter.value === 'number' && !Number.isFinite(filter.value))) {
        throw new ConditionError(`${fp}.value must be a string, a number or a boolean`);
      }
      if (typeof filter.value === 'string' && filter.value.includes('\u0000')) throw new ConditionError(`${fp}.value holds a NUL character`);
    });
    if (group.conditions !== undefined) segments.push(...validateCondition(group.conditions, `${gp}.conditions`, depth + 1, counter).segments);
  });
  return { segments };
}

/** What the compiler needs to know about a referenced segment. */
export interface SegmentRef {
  id: string;
  type: 'DYNAMIC' | 'STATIC';
  condition: Condition | null;
}
