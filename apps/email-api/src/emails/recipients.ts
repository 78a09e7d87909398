import type { FieldError } from '@platform/errors';
import { isEmail } from 'class-validator';

export interface Address {
  email: string;
  name?: string;
}

export const MAX_RECIPIENTS = 50;
const NO_BREAKS = /^[^\r\n]*$/;

function address(value: unknown, field: string, errors: FieldError[]): Address | null {
  if (typeof value === 'string') {
    const email = value.trim().toLowerCase();
    if (isEmail(email)) return { email };
    errors.push({ field, message: 'must be an email address', code: 'invalid_string' });
    return null;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { email, name, ...rest } = value as Record<string, unknown>;
    if (Object.keys(rest).length) errors.push({ field, message: `unknown keys ${Object.keys(rest).join(', ')}`, code: 'unrecognized_key' });
    if (typeof email !== 'string' || !isEmail(email.trim())) {
      errors.push({ field: `${field}.email`, message: 'must be an email address', code: 'invalid_string' });
      return null;
    }
    if (name !== undefined && (typeof name !== 'string' || name.length > 200 || !NO_BREAKS.test(name))) {
      errors.push({ field: `${field}.name`, message: 'must be a string of at most 200 characters without line breaks', code: 'invalid_string' });
      return null;
    }
    return { email: email.trim().toLowerCase(), ...(name ? { name } : {}) };
  }
  errors.push({ field, message: 'must be an email string or {name, email}', code: 'invalid_type' });
  return null;
}

/** `to` as a list of distinct recipients, or field errors. */
export function parseRecipients(to: unknown, errors: FieldError[]): Address[] {
  const list = Array.isArray(to) ? to : [to];
  if (list.length === 0) errors.push({ field: 'to', message: 'at least one recipient is required', code: 'too_small' });
  if (list.length > MAX_RECIPIENTS) errors.push({ field: 'to', message: `at most ${MAX_RECIPIENTS} recipients`, code: 'too_big' });
  const out = new Map<string, Address>();
  list.slice(0, MAX_RECIPIENTS).forEach((item, i) => {
    const a = address(item, Array.isArray(to) ? `to.${i}` : 'to', errors);
    if (a && !out.has(a.email)) out.set(a.email, a);
  });
  return [...out.values()];
}

export function parseSender(from: unknown, errors: FieldError[]): Address | null {
  if (from === undefined) return null;
  return address(from, 'from', errors);
}

const FORBIDDEN_HEADERS = new Set([
  'from', 'to', 'cc', 'bcc', 'subject', 'reply-to', 'sender', 'date', 'message-id', 'mime-version',
  'content-type', 'content-transfer-encoding', 'list-unsubscribe', 'list-unsubscribe-post', 'return-path',
]);

export function parseHeaders(headers: Record<string, unknown> | undefined, errors: FieldError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const field = `headers.${name}`;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(name)) errors.push({ field, message: 'not a valid header name', code: 'invalid_string' });
    else if (FORBIDDEN_HEADERS.has(name.toLowerCase())) errors.push({ field, message: 'this header is set by the platform', code: 'forbidden_header' });
    else if (typeof value !== 'string' || value.length > 2000 || !NO_BREAKS.test(value)) errors.push({ field, message: 'must be a string of at most 2000 characters without line breaks', code: 'invalid_string' });
    else out[name] = value;
  }
  return out;
}

/** The address of a stored recipient (`"Ada" <ada@example.com>` or `ada@example.com`), lower-cased. */
export function recipientAddress(to: string): string {
  const m = /<([^<>]+)>$/.exec(to);
  return (m ? m[1] : to).trim().toLowerCase();
}
