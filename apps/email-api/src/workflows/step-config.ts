import type { FieldError } from '@platform/errors';

/**
 * The domain types of workflow definitions: step types, trigger types, each step type's config and
 * their validation (plain functions, no I/O). The engine imports the types; `validateStepConfig`
 * and `validateTriggerConfig` are used by the definition API only.
 */

export const STEP_TYPES = ['TRIGGER', 'SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const;
export type StepType = (typeof STEP_TYPES)[number];
/** The types a client adds with `POST /workflows/:id/steps` (the TRIGGER step comes with the workflow). */
export const ADDABLE_STEP_TYPES = STEP_TYPES.filter((t) => t !== 'TRIGGER') as Exclude<StepType, 'TRIGGER'>[];

export const TRIGGER_TYPES = ['EVENT', 'SEGMENT_ENTRY', 'SEGMENT_EXIT', 'MANUAL'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** `yes`/`no` out of a CONDITION step (both required to enable), `timeout` out of a WAIT_FOR_EVENT step (optional). */
export const BRANCHES = ['yes', 'no', 'timeout'] as const;
export type Branch = (typeof BRANCHES)[number];

export const DELAY_UNITS = ['minutes', 'hours', 'days'] as const;
export type DelayUnit = (typeof DELAY_UNITS)[number];
const UNIT_SECONDS: Record<DelayUnit, number> = { minutes: 60, hours: 3600, days: 86_400 };
/** The longest DELAY and WAIT_FOR_EVENT timeout: 365 days. */
export const MAX_WAIT_SECONDS = 365 * 86_400;

export const CONDITION_OPERATORS = ['equals', 'not_equals', 'contains', 'not_contains', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists', 'in'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
/** Mail facts a CONDITION reads: `email.<stepId>.opened` / `email.<stepId>.clicked`. */
export const MAIL_FACTS = ['opened', 'clicked'] as const;
export type MailFact = (typeof MAIL_FACTS)[number];

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

export type TriggerStepConfig = Record<string, never>;
export interface SendEmailConfig {
  templateId: string;
  /** Another recipient than the contact (an address); the contact's address when absent. */
  to?: string;
}
export interface DelayConfig {
  amount: number;
  unit: DelayUnit;
}
export interface WaitForEventConfig {
  eventName: string;
  /** Seconds; without it the execution waits until the event comes (at most 365 days). */
  timeout?: number;
}
export interface ConditionConfig {
  field: string;
  operator: ConditionOperator;
  /** Absent for `exists` / `not_exists`; an array for `in`. */
  value?: unknown;
}
export interface WebhookConfig {
  url: string;
  method: WebhookMethod;
  headers?: Record<string, string>;
  body?: unknown;
}
export interface UpdateContactConfig {
  /** Custom fields merged into the contact (null removes one). */
  data?: Record<string, unknown>;
  subscribed?: boolean;
}
export interface ExitConfig {
  reason?: string;
}

export interface StepConfigs {
  TRIGGER: TriggerStepConfig;
  SEND_EMAIL: SendEmailConfig;
  DELAY: DelayConfig;
  WAIT_FOR_EVENT: WaitForEventConfig;
  CONDITION: ConditionConfig;
  WEBHOOK: WebhookConfig;
  UPDATE_CONTACT: UpdateContactConfig;
  EXIT: ExitConfig;
}
export type StepConfig = StepConfigs[StepType];

/** `{eventName}` for EVENT, `{segmentId}` for SEGMENT_ENTRY / SEGMENT_EXIT, `{}` for MANUAL. */
export interface TriggerConfig {
  eventName?: string;
  segmentId?: string;
}

/** The parsed parts of a CONDITION field. */
export type ConditionField =
  | { kind: 'contact'; name: 'email' | 'subscribed' }
  | { kind: 'data'; path: string[] }
  | { kind: 'event'; path: string[] }
  | { kind: 'mail'; stepId: string; fact: MailFact };

/** Milliseconds of a DELAY step. */
export function delayMs(config: DelayConfig): number {
  return config.amount * UNIT_SECONDS[config.unit] * 1000;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const EMAIL = /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$/;
/** A header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the HTTP client sets itself (framing, the signature, the target). */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection', 'x-webhook-signature', 'x-webhook-timestamp', 'x-webhook-id', 'idempotency-key']);
const MAX_HEADERS = 30;
const MAX_BODY_CHARS = 64 * 1024;
const MAX_DATA_KEYS = 50;

/** Parses a CONDITION field, or null when the field is not one of the accepted forms. */
export function parseConditionField(field: string): ConditionField | null {
  if (field === 'contact.email' || field === 'contact.subscribed') return { kind: 'contact', name: field.slice(8) as 'email' | 'subscribed' };
  const parts = field.split('.');
  if (field.startsWith('contact.data.')) {
    const path = parts.slice(2);
    return path.length >= 1 && path.length <= 5 && path.every((p) => KEY.test(p)) ? { kind: 'data', path } : null;
  }
  if (field.startsWith('event.')) {
    const path = parts.slice(1);
    return path.length >= 1 && path.length <= 5 && path.every((p) => KEY.test(p)) ? { kind: 'event', path } : null;
  }
  if (field.startsWith('email.') && parts.length === 3 && UUID.test(parts[1]) && (MAIL_FACTS as readonly string[]).includes(parts[2])) {
    return { kind: 'mail', stepId: parts[1].toLowerCase(), fact: parts[2] as MailFact };
  }
  return null;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** An event name as `/v1/track` accepts it: 1–100 characters, no surrounding whitespace. */
export function isEventName(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 1 && v.length <= 100 && /^\S(.*\S)?$/.test(v) && !v.includes('\u0000');
}

class Errors {
  readonly list: FieldError[] = [];
  constructor(private readonly prefix: string) {}
  add(field: string, code: string, message: string): void {
    this.list.push({ field: field ? `${this.prefix}.${field}` : this.prefix, code, message });
  }
  unknownKeys(config: Record<string, unknown>, allowed: string[]): void {
    for (const key of Object.keys(config)) if (!allowed.includes(key)) this.add(key, 'unrecognized_key', `${key} is not a setting of this step type (allowed: ${allowed.join(', ') || 'none'})`);
  }
}

function positiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}

/**
 * The field errors of a step's config (empty when valid). Field names are `config.<key>` (or
 * `<prefix>.<key>`). Unknown keys are refused, so a typo never silently changes behaviour.
 */
export function validateStepConfig(type: StepType, input: unknown, prefix = 'config'): FieldError[] {
  const e = new Errors(prefix);
  if (!isPlainObject(input)) {
    e.add('', 'invalid_type', `${prefix} must be an object`);
    return e.list;
  }
  const c = input;
  switch (type) {
    case 'TRIGGER':
      e.unknownKeys(c, []);
      break;
    case 'SEND_EMAIL':
      e.unknownKeys(c, ['templateId', 'to']);
      if (typeof c.templateId !== 'string' || !UUID.test(c.templateId)) e.add('templateId', 'invalid_string', 'templateId must be the id (uuid) of a template of the project');
      if (c.to !== undefined && (typeof c.to !== 'string' || c.to.length > 254 || !EMAIL.test(c.to))) e.add('to', 'invalid_string', 'to must be an email address (omit it to mail the contact)');
      break;
    case 'DELAY':
      e.unknownKeys(c, ['amount', 'unit']);
      if (!(DELAY_UNITS as readonly unknown[]).includes(c.unit)) e.add('unit', 'invalid_enum_value', `unit must be one of ${DELAY_UNITS.join(', ')}`);
      if (!positiveInt(c.amount)) e.add('amount', 'invalid_type', 'amount must be a positive integer');
      else if ((DELAY_UNITS as readonly unknown[]).includes(c.unit) && c.amount * UNIT_SECONDS[c.unit as DelayUnit] > MAX_WAIT_SECONDS) e.add('amount', 'too_big', 'a delay lasts at most 365 days');
      break;
    case 'WAIT_FOR_EVENT':
      e.unknownKeys(c, ['eventName', 'timeout']);
      if (!isEventName(c.eventName)) e.add('eventName', 'invalid_string', 'eventName must be an event name of 1 to 100 characters without surrounding whitespace');
      if (c.timeout !== undefined && (!positiveInt(c.timeout) || c.timeout > MAX_WAIT_SECONDS)) e.add('timeout', 'invalid_type', `timeout must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS} (365 days)`);
      break;
    case 'CONDITION':
      validateCondition(c, e);
      break;
    case 'WEBHOOK':
      validateWebhook(c, e);
      break;
    case 'UPDATE_CONTACT':
      e.unknownKeys(c, ['data', 'subscribed']);
      if (c.subscribed !== undefined && typeof c.subscribed !== 'boolean') e.add('subscribed', 'invalid_type', 'subscribed must be true or false');
      if (c.data !== undefined) {
        if (!isPlainObject(c.data)) e.add('data', 'invalid_type', 'data must be an object of custom fields');
        else {
          const keys = Object.keys(c.data);
          if (keys.length > MAX_DATA_KEYS) e.add('data', 'too_big', `data sets at most ${MAX_DATA_KEYS} fields`);
          for (const key of keys) {
            if (!KEY.test(key)) e.add(`data.${key.slice(0, 100)}`, 'invalid_string', 'custom field keys are 1 to 100 letters, digits, _ or -');
            else if (['id', 'email', 'subscribed', 'createdAt', 'updatedAt', 'data'].includes(key)) e.add(`data.${key}`, 'reserved_key', `${key} is a standard field, not a custom one`);
          }
          if (JSON.stringify(c.data).length > MAX_BODY_CHARS) e.add('data', 'too_big', 'data holds at most 64 KiB of JSON');
        }
      }
      if (c.data === undefined && c.subscribed === undefined) e.add('', 'too_small', 'an UPDATE_CONTACT step sets data, subscribed or both');
      break;
    case 'EXIT':
      e.unknownKeys(c, ['reason']);
      if (c.reason !== undefined && (typeof c.reason !== 'string' || c.reason.length === 0 || c.reason.length > 200)) e.add('reason', 'invalid_string', 'reason must be a string of 1 to 200 characters');
      break;
  }
  return e.list;
}

function validateCondition(c: Record<string, unknown>, e: Errors): void {
  e.unknownKeys(c, ['field', 'operator', 'value']);
  const field = typeof c.field === 'string' ? parseConditionField(c.field) : null;
  if (!field) {
    e.add('field', 'invalid_string', 'field must be contact.email, contact.subscribed, contact.data.<key>, event.<key> (keys of letters, digits, _ or -, up to 5 levels) or email.<stepId>.opened|clicked');
  }
  if (!(CONDITION_OPERATORS as readonly unknown[]).includes(c.operator)) {
    e.add('operator', 'invalid_enum_value', `operator must be one of ${CONDITION_OPERATORS.join(', ')}`);
    return;
  }
  const op = c.operator as ConditionOperator;
  const v = c.value;
  if (field && (field.kind === 'mail' || (field.kind === 'contact' && field.name === 'subscribed'))) {
    if (op !== 'equals' && op !== 'not_equals') e.add('operator', 'invalid_enum_value', `${c.field as string} takes equals or not_equals (with true or false)`);
    else if (typeof v !== 'boolean') e.add('value', 'invalid_type', 'value must be true or false');
    return;
  }
  if (op === 'exists' || op === 'not_exists') {
    if (v !== undefined && v !== null) e.add('value', 'unrecognized_key', `${op} takes no value`);
  } else if (op === 'in') {
    if (!Array.isArray(v) || v.length === 0 || v.length > 100 || !v.every(isScalar)) e.add('value', 'invalid_type', 'value must be an array of 1 to 100 strings, numbers or booleans');
  } else if (op === 'contains' || op === 'not_contains') {
    if (typeof v !== 'string' || v.length === 0 || v.length > 1000) e.add('value', 'invalid_string', 'value must be a string of 1 to 1000 characters');
  } else if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') {
    if (!(typeof v === 'number' && Number.isFinite(v)) && !(typeof v === 'string' && v.length > 0 && v.length <= 100)) e.add('value', 'invalid_type', 'value must be a number, or a string (dates as ISO 8601)');
  } else if (!isScalar(v)) {
    e.add('value', 'invalid_type', 'value must be a string, a number or a boolean');
  }
  if (typeof v === 'string' && v.includes('\u0000')) e.add('value', 'invalid_string', 'value holds a NUL character');
}

function validateWebhook(c: Record<string, unknown>, e: Errors): void {
  e.unknownKeys(c, ['url', 'method', 'headers', 'body']);
  let url: URL | null = null;
  if (typeof c.url === 'string' && c.url.length <= 2048) {
    try {
      url = new URL(c.url);
    } catch {
      url = null;
    }
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) e.add('url', 'invalid_string', 'url must be an http or https URL of at most 2048 characters');
  else if (url.username || url.password) e.add('url', 'invalid_string', 'url must not carry credentials: send them in a header');
  if (!(WEBHOOK_METHODS as readonly unknown[]).includes(c.method)) e.add('method', 'invalid_enum_value', `method must be one of ${WEBHOOK_METHODS.join(', ')}`);
  if (c.headers !== undefined) {
    if (!isPlainObject(c.headers)) e.add('headers', 'invalid_type', 'headers must be an object of header names to string values');
    else {
      const entries = Object.entries(c.headers);
      if (entries.length > MAX_HEADERS) e.add('headers', 'too_big', `at most ${MAX_HEADERS} headers`);
      for (const [name, value] of entries.slice(0, MAX_HEADERS + 1)) {
        const f = `headers.${name.slice(0, 100)}`;
        if (!HEADER_NAME.test(name)) e.add(f, 'invalid_string', 'a header name is 1 to 100 token characters');
        else if (RESERVED_HEADERS.has(name.toLowerCase())) e.add(f, 'reserved_key', `${name} is set by the platform`);
        if (typeof value !== 'string' || value.length > 4096 || /[\r\n\u0000]/.test(value)) e.add(f, 'invalid_string', 'a header value is a string of at most 4096 characters without line breaks');
      }
    }
  }
  if (c.body !== undefined && c.body !== null) {
    if (c.method === 'GET') e.add('body', 'unrecognized_key', 'a GET request carries no body');
    else if (typeof c.body !== 'string' && !isPlainObject(c.body) && !Array.isArray(c.body)) e.add('body', 'invalid_type', 'body must be a string or a JSON object or array');
    else if ((typeof c.body === 'string' ? c.body : JSON.stringify(c.body)).length > MAX_BODY_CHARS) e.add('body', 'too_big', 'body holds at most 64 KiB');
  }
}

/** Shape errors of a trigger config for its type (existence of the segment is checked by the service). */
export function validateTriggerConfig(type: TriggerType, input: unknown, prefix = 'triggerConfig'): FieldError[] {
  const e = new Errors(prefix);
  if (!isPlainObject(input)) {
    e.add('', 'invalid_type', `${prefix} must be an object`);
    return e.list;
  }
  if (type === 'EVENT') {
    e.unknownKeys(input, ['eventName']);
    if (input.eventName !== undefined && !isEventName(input.eventName)) e.add('eventName', 'invalid_string', 'eventName must be an event name of 1 to 100 characters without surrounding whitespace');
  } else if (type === 'SEGMENT_ENTRY' || type === 'SEGMENT_EXIT') {
    e.unknownKeys(input, ['segmentId']);
    if (input.segmentId !== undefined && (typeof input.segmentId !== 'string' || !UUID.test(input.segmentId))) e.add('segmentId', 'invalid_string', 'segmentId must be the id (uuid) of a segment with tracked membership');
  } else {
    e.unknownKeys(input, []);
  }
  return e.list;
}
