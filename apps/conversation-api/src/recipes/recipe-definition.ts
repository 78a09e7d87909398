import { assertPublicUrl } from '@platform/http-safety';
import type { FieldError } from '@platform/errors';

/**
 * What a recipe is: one trigger, conditions (all or any must hold) and the actions it takes, in
 * order. Drafts are stored in this shape; a published version is an immutable copy of one.
 */
export const TRIGGERS = ['message_created', 'conversation_created', 'status_changed', 'assignee_changed'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const PRIORITY_VALUES = ['low', 'medium', 'high', 'urgent'] as const;
export const STATUS_VALUES = ['open', 'pending', 'snoozed', 'resolved'] as const;
export const ATTRIBUTE_OPERATORS = ['equals', 'not_equals', 'contains', 'present', 'absent'] as const;

export type Condition =
  | { type: 'text_contains'; value: string; case_sensitive?: boolean }
  | { type: 'text_matches'; pattern: string; case_sensitive?: boolean }
  | { type: 'channel'; channel_ids: string[] }
  | { type: 'contact_attribute'; key: string; operator: (typeof ATTRIBUTE_OPERATORS)[number]; value?: string | number | boolean }
  | { type: 'label'; operator: 'has' | 'lacks'; label: string }
  | { type: 'priority'; priorities: Array<(typeof PRIORITY_VALUES)[number] | 'none'> }
  | { type: 'status'; statuses: Array<(typeof STATUS_VALUES)[number]> }
  | { type: 'message_type'; message_types: Array<'incoming' | 'outgoing'> }
  | { type: 'business_hours'; within: boolean };

export type Action =
  | { type: 'assign_agent'; user_id: string }
  | { type: 'assign_team'; team_id: string; round_robin?: boolean; cap?: number }
  | { type: 'add_label'; label: string }
  | { type: 'reply'; canned_response_id: string }
  | { type: 'out_of_office_reply' }
  | { type: 'set_priority'; priority: (typeof PRIORITY_VALUES)[number] | null }
  | { type: 'snooze'; minutes: number }
  | { type: 'resolve' }
  | { type: 'webhook'; url: string };

export interface RecipeDefinition {
  trigger: Trigger | null;
  match: 'all' | 'any';
  conditions: Condition[];
  actions: Action[];
}

export const CONDITION_TYPES = ['text_contains', 'text_matches', 'channel', 'contact_attribute', 'label', 'priority', 'status', 'message_type', 'business_hours'] as const;
export const ACTION_TYPES = ['assign_agent', 'assign_team', 'add_label', 'reply', 'out_of_office_reply', 'set_priority', 'snooze', 'resolve', 'webhook'] as const;

export const MAX_CONDITIONS = 20;
export const MAX_ACTIONS = 10;
export const MAX_PATTERN_LENGTH = 200;

/** The draft of a new recipe. */
export const emptyDefinition = (): RecipeDefinition => ({ trigger: null, match: 'all', conditions: [], actions: [] });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A regular expression refused because it can take exponential time (a quantified group that
 * itself holds a quantifier or an alternation, such as `(a+)+` or `(a|aa)*`), or because it does not compile.
 */
export function unsafePattern(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
  if (/\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,\d*\}|\|)(?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d+,\d*\})/.test(pattern)) {
    return 'a repeated group that holds a repetition or an alternation can take exponential time; simplify the pattern';
  }
  if (/\\[1-9]/.test(pattern)) return 'back-references are not supported';
  return null;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

class Checker {
  readonly errors: FieldError[] = [];
  add(field: string, message: string, code = 'invalid'): void {
    this.errors.push({ field, message, code });
  }

  /** Unknown keys are refused (a misspelt key would otherwise be silently ignored). */
  keys(node: Obj, path: string, allowed: string[]): void {
    for (const key of Object.keys(node)) if (!allowed.includes(key)) this.add(join(path, key), `unknown property; allowed: ${allowed.join(', ')}`, 'unknown_property');
  }

  string(node: Obj, key: string, path: string, max: number, opts: { optional?: boolean } = {}): string | undefined {
    const v = node[key];
    if (v === undefined && opts.optional) return undefined;
    if (typeof v !== 'string' || !v.trim()) return void this.add(join(path, key), 'must be a non-empty string', 'required');
    if (v.length > max) return void this.add(join(path, key), `must be at most ${max} characters`, 'too_long');
    return v;
  }

  uuid(node: Obj, key: string, path: string): string | undefined {
    const v = node[key];
    if (typeof v !== 'string' || !UUID.test(v)) return void this.add(join(path, key), 'must be a UUID', 'invalid_uuid');
    return v.toLowerCase();
  }

  bool(node: Obj, key: string, path: string, opts: { optional?: boolean } = {}): boolean | undefined {
    const v = node[key];
    if (v === undefined && opts.optional) return undefined;
    if (typeof v !== 'boolean') return void this.add(join(path, key), 'must be true or false', 'invalid_type');
    return v;
  }

  int(node: Obj, key: string, path: string, min: number, max: number, opts: { optional?: boolean } = {}): number | undefined {
    const v = node[key];
    if (v === undefined && opts.optional) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) return void this.add(join(path, key), `must be an integer from ${min} to ${max}`, 'out_of_range');
    return v;
  }

  oneOf<T extends string>(node: Obj, key: string, path: string, values: readonly T[]): T | undefined {
    const v = node[key];
    if (typeof v !== 'string' || !values.includes(v as T)) return void this.add(join(path, key), `must be one of ${values.join(', ')}`, 'invalid_enum');
    return v as T;
  }

  list<T extends string>(node: Obj, key: string, path: string, check: (v: unknown) => v is T, what: string, max = 50): T[] | undefined {
    const v = node[key];
    if (!Array.isArray(v) || v.length === 0 || v.length > max) return void this.add(join(path, key), `must be a list of 1 to ${max} ${what}`, 'invalid_list');
    const bad = v.findIndex((x) => !check(x));
    if (bad >= 0) return void this.add(`${join(path, key)}[${bad}]`, `must be ${what}`, 'invalid_item');
    return [...new Set(v as T[])];
  }
}

const among =
  <T extends string>(values: readonly T[]) =>
  (v: unknown): v is T =>
    typeof v === 'string' && (values as readonly string[]).includes(v);
const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

function condition(c: Checker, node: unknown, path: string): Condition | undefined {
  if (!isObj(node)) return void c.add(path, 'must be an object with a type', 'invalid_type');
  const type = c.oneOf(node, 'type', path, CONDITION_TYPES);
  if (!type) return undefined;
  const before = c.errors.length;
  let out: Condition | undefined;
  switch (type) {
    case 'text_contains': {
      c.keys(node, path, ['type', 'value', 'case_sensitive']);
      const value = c.string(node, 'value', path, 500);
      const cs = c.bool(node, 'case_sensitive', path, { optional: true });
      out = { type, value: value!, ...(cs !== undefined ? { case_sensitive: cs } : {}) };
      break;
    }
    case 'text_matches': {
      c.keys(node, path, ['type', 'pattern', 'case_sensitive']);
      const pattern = c.string(node, 'pattern', path, MAX_PATTERN_LENGTH);
      const cs = c.bool(node, 'case_sensitive', path, { optional: true });
      const unsafe = pattern !== undefined ? unsafePattern(pattern) : null;
      if (unsafe) c.add(`${path}.pattern`, unsafe, 'unsafe_pattern');
      out = { type, pattern: pattern!, ...(cs !== undefined ? { case_sensitive: cs } : {}) };
      break;
    }
    case 'channel':
      c.keys(node, path, ['type', 'channel_ids']);
      out = { type, channel_ids: (c.list(node, 'channel_ids', path, isUuid, 'channel ids (UUIDs)') ?? []).map((id) => id.toLowerCase()) };
      break;
    case 'contact_attribute': {
      c.keys(node, path, ['type', 'key', 'operator', 'value']);
      const key = c.string(node, 'key', path, 100);
      const operator = c.oneOf(node, 'operator', path, ATTRIBUTE_OPERATORS);
      const value = node.value;
      const needsValue = operator === 'equals' || operator === 'not_equals' || operator === 'contains';
      if (needsValue && !['string', 'number', 'boolean'].includes(typeof value)) c.add(`${path}.value`, `operator ${operator} needs a string, number or boolean value`, 'required');
      if (!needsValue && value !== undefined) c.add(`${path}.value`, `operator ${operator} takes no value`, 'unexpected');
      if (typeof value === 'string' && value.length > 500) c.add(`${path}.value`, 'must be at most 500 characters', 'too_long');
      out = { type, key: key!, operator: operator!, ...(needsValue ? { value: value as string | number | boolean } : {}) };
      break;
    }
    case 'label':
      c.keys(node, path, ['type', 'operator', 'label']);
      out = { type, operator: c.oneOf(node, 'operator', path, ['has', 'lacks'] as const)!, label: c.string(node, 'label', path, 100)! };
      break;
    case 'priority':
      c.keys(node, path, ['type', 'priorities']);
      out = { type, priorities: c.list(node, 'priorities', path, among([...PRIORITY_VALUES, 'none'] as const), `one of ${[...PRIORITY_VALUES, 'none'].join(', ')}`)! };
      break;
    case 'status':
      c.keys(node, path, ['type', 'statuses']);
      out = { type, statuses: c.list(node, 'statuses', path, among(STATUS_VALUES), `one of ${STATUS_VALUES.join(', ')}`)! };
      break;
    case 'message_type':
      c.keys(node, path, ['type', 'message_types']);
      out = { type, message_types: c.list(node, 'message_types', path, among(['incoming', 'outgoing'] as const), 'incoming or outgoing')! };
      break;
    case 'business_hours':
      c.keys(node, path, ['type', 'within']);
      out = { type, within: c.bool(node, 'within', path)! };
      break;
  }
  return c.errors.length === before ? out : undefined;
}

function action(c: Checker, node: unknown, path: string): Action | undefined {
  if (!isObj(node)) return void c.add(path, 'must be an object with a type', 'invalid_type');
  const type = c.oneOf(node, 'type', path, ACTION_TYPES);
  if (!type) return undefined;
  const before = c.errors.length;
  let out: Action | undefined;
  switch (type) {
    case 'assign_agent':
      c.keys(node, path, ['type', 'user_id']);
      out = { type, user_id: c.uuid(node, 'user_id', path)! };
      break;
    case 'assign_team': {
      c.keys(node, path, ['type', 'team_id', 'round_robin', 'cap']);
      const teamId = c.uuid(node, 'team_id', path);
      const rr = c.bool(node, 'round_robin', path, { optional: true });
      const cap = c.int(node, 'cap', path, 1, 1000, { optional: true });
      if (cap !== undefined && rr === false) c.add(`${path}.cap`, 'a cap applies to round-robin assignment only', 'unexpected');
      out = { type, team_id: teamId!, ...(rr !== undefined ? { round_robin: rr } : {}), ...(cap !== undefined ? { cap } : {}) };
      break;
    }
    case 'add_label':
      c.keys(node, path, ['type', 'label']);
      out = { type, label: c.string(node, 'label', path, 100)! };
      break;
    case 'reply':
      c.keys(node, path, ['type', 'canned_response_id']);
      out = { type, canned_response_id: c.uuid(node, 'canned_response_id', path)! };
      break;
    case 'out_of_office_reply':
    case 'resolve':
      c.keys(node, path, ['type']);
      out = { type };
      break;
    case 'set_priority': {
      c.keys(node, path, ['type', 'priority']);
      if (node.priority !== null && !among(PRIORITY_VALUES)(node.priority)) c.add(`${path}.priority`, `must be one of ${PRIORITY_VALUES.join(', ')} or null`, 'invalid_enum');
      out = { type, priority: node.priority as (typeof PRIORITY_VALUES)[number] | null };
      break;
    }
    case 'snooze':
      c.keys(node, path, ['type', 'minutes']);
      out = { type, minutes: c.int(node, 'minutes', path, 1, 525_600)! };
      break;
    case 'webhook': {
      c.keys(node, path, ['type', 'url']);
      const url = c.string(node, 'url', path, 2048);
      if (url !== undefined) {
        try {
          assertPublicUrl(url);
        } catch (err) {
          c.add(`${path}.url`, (err as Error).message, 'blocked_url');
        }
      }
      out = { type, url: url! };
      break;
    }
  }
  return c.errors.length === before ? out : undefined;
}

/**
 * Checks a draft: each bad node is reported with its path (`actions[1].url`). A draft may be
 * incomplete (no trigger, no action yet); `complete: true` (publishing) also requires a trigger and
 * at least one action.
 */
export function checkDefinition(input: unknown, opts: { complete?: boolean; path?: string } = {}): { definition: RecipeDefinition | null; errors: FieldError[] } {
  const c = new Checker();
  const root = opts.path ?? '';
  const at = (key: string) => (root ? `${root}.${key}` : key);
  if (!isObj(input)) {
    c.add(root || 'body', 'must be an object with trigger, match, conditions and actions', 'invalid_type');
    return { definition: null, errors: c.errors };
  }
  c.keys(input, root, ['trigger', 'match', 'conditions', 'actions']);
  let trigger: Trigger | null = null;
  if (input.trigger !== null && input.trigger !== undefined) trigger = c.oneOf(input, 'trigger', root, TRIGGERS) ?? null;
  else if (opts.complete) c.add(at('trigger'), `a published recipe needs a trigger: one of ${TRIGGERS.join(', ')}`, 'required');
  const match = input.match === undefined ? 'all' : c.oneOf(input, 'match', root, ['all', 'any'] as const);
  const conditions: Condition[] = [];
  const actions: Action[] = [];
  const conditionsIn = input.conditions ?? [];
  if (!Array.isArray(conditionsIn) || conditionsIn.length > MAX_CONDITIONS) c.add(at('conditions'), `must be a list of at most ${MAX_CONDITIONS} conditions`, 'invalid_list');
  else conditionsIn.forEach((node, i) => {
    const ok = condition(c, node, `${at('conditions')}[${i}]`);
    if (ok) conditions.push(ok);
  });
  const actionsIn = input.actions ?? [];
  if (!Array.isArray(actionsIn) || actionsIn.length > MAX_ACTIONS) c.add(at('actions'), `must be a list of at most ${MAX_ACTIONS} actions`, 'invalid_list');
  else {
    if (opts.complete && actionsIn.length === 0) c.add(at('actions'), 'a published recipe needs at least one action', 'required');
    actionsIn.forEach((node, i) => {
      const ok = action(c, node, `${at('actions')}[${i}]`);
      if (ok) actions.push(ok);
    });
  }
  if (c.errors.length) return { definition: null, errors: c.errors };
  return { definition: { trigger, match: match ?? 'all', conditions, actions }, errors: [] };
}
