// Input that every service must refuse before it reaches validation or the database. Both checks
// run for every app created by createServiceApp, so each answers in its own spec's error shape
// (RequestValidationException → 400/422 through the app's filter), never with a 500.
import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { RequestValidationException, type FieldError } from '@platform/errors';
import type { NextFunction, Request, Response } from 'express';

/** Deepest nesting of objects and arrays accepted in a JSON body (the body itself is level 0). */
export const MAX_JSON_DEPTH = 32;

/**
 * The dotted path of the first object or array nested `max` levels deep, or null. Iterative, so a
 * hostile body cannot overflow the stack here.
 */
export function firstTooDeep(value: unknown, max: number): string | null {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 0, path: '' }];
  while (stack.length) {
    const item = stack.pop()!;
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= max) return item.path;
    for (const [key, child] of Object.entries(item.value)) stack.push({ value: child, depth: item.depth + 1, path: item.path ? `${item.path}.${key}` : key });
  }
  return null;
}

/**
 * Refuses bodies nested more than `max` levels before validation runs: class-transformer,
 * JSON.stringify and the rest of the request path recurse over the body, and a few thousand levels
 * (a 20 kB request) would overflow the stack into a 500. Installed right after the body parsers.
 */
export function rejectDeepJson(max = MAX_JSON_DEPTH) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const path = firstTooDeep(req.body, max);
    if (path === null) return next();
    next(
      new RequestValidationException([
        { field: path.split('.').slice(0, 2).join('.'), message: `nested deeper than ${max} levels of objects and arrays`, code: 'too_deep' },
      ]),
    );
  };
}

const NUL = '\u0000';
/** A UTF-16 surrogate without its pair: not a character, and PostgreSQL refuses it in jsonb. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL cannot store `text`, or null when it can. */
function unstorable(text: string): string | null {
  if (text.includes(NUL)) return 'must not contain NUL (\\u0000) characters';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it holds an unpaired UTF-16 surrogate such as \\ud800)';
  return null;
}

/**
 * Every string (and object key) PostgreSQL text and jsonb cannot hold — a NUL character or an
 * unpaired surrogate — with its dotted path.
 */
export function unstorableText(value: unknown, field = ''): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: field }];
  while (stack.length) {
    const { value: item, path } = stack.pop()!;
    if (typeof item === 'string') {
      const why = unstorable(item);
      if (why) errors.push({ field: path || 'body', message: `${path || 'body'} ${why}`, code: 'invalid_string' });
      continue;
    }
    if (item === null || typeof item !== 'object' || Buffer.isBuffer(item) || item instanceof Date) continue;
    for (const [key, child] of Object.entries(item)) {
      const childPath = path ? `${path}.${key}` : key;
      const why = unstorable(key);
      if (why) errors.push({ field: childPath, message: `the key ${why}`, code: 'invalid_key' });
      stack.push({ value: child, path: childPath });
    }
  }
  return errors;
}

/**
 * PostgreSQL text and jsonb cannot hold the NUL character (nor jsonb an unpaired surrogate): a body,
 * query or path value carrying one would fail in the database (a 500). This global pipe refuses it
 * first, naming the field.
 */
@Injectable()
export class RejectNulPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    const errors = unstorableText(value, metadata.data ?? '');
    if (errors.length) throw new RequestValidationException(errors);
    return value;
  }
}
