import { PATH_METADATA } from '@nestjs/common/constants';
import { ApiExtraModels, DECORATORS, getSchemaPath } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from './dto/error-envelope.dto';

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503;

/** Per status, the codes an operation gives and when (Markdown). */
export type ErrorDocs = Partial<Record<ErrorStatus, string>>;

const ALWAYS: ErrorDocs = { 500: '`INTERNAL_ERROR`: an unexpected failure (never with a stack); quote the `requestId` to support' };

/** A JSON body of at most `limit` (as body-parser reads it: '1mb'), nested at most 32 levels, checked by the DTO. */
export function jsonBodyErrors(limit: string): ErrorDocs {
  return {
    400: '`BAD_REQUEST`: the body is not valid JSON',
    413: `\`PAYLOAD_TOO_LARGE\`: the body is larger than ${limit.replace(/^(\d+)\s*([kmg]?b)$/i, (_, n: string, unit: string) => `${n} ${unit.toUpperCase()}`)}`,
    422: '`VALIDATION_ERROR`: the body breaks the rules of its schema (unknown fields too; text with NUL characters; nesting deeper than 32 levels); `error.errors` names each field',
  };
}

/** A JSON body under the platform's default limit (1 MB); the routes of common/body-limits.ts use jsonBodyErrors(theirLimit). */
export const JSON_BODY_ERRORS: ErrorDocs = jsonBodyErrors('1mb');

/** Path or query values are checked before they reach the database. */
export const PARAM_ERRORS: ErrorDocs = {
  422: '`VALIDATION_ERROR`: a path or query value breaks its rules or holds a NUL character (`error.errors` names it)',
};

const SEPARATOR = '\n\n';

/** Every 429 of this service comes from the project rate limiter, which always sends it. */
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 1 } } };

/** Adds the error entries to one handler's response metadata; a status given twice keeps every distinct description. */
function addTo(handler: object, docs: Map<string, string[]>): void {
  const responses: Record<string, { description?: string }> = { ...(Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}) };
  for (const [status, texts] of docs) {
    const parts = responses[status]?.description?.split(SEPARATOR).filter(Boolean) ?? [];
    for (const text of texts) if (!parts.includes(text)) parts.push(text);
    responses[status] = {
      description: parts.join(SEPARATOR),
      ...(status === '429' ? { headers: RETRY_AFTER } : {}),
      content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } } },
    } as never;
  }
  Reflect.defineMetadata(DECORATORS.API_RESPONSE, responses, handler);
}

/**
 * Documents the error answers of an operation, each with the error envelope schema
 * (`ErrorEnvelopeDto`) and 500 always. On a controller class it applies to every route of the
 * class; the same status documented twice (the access decorator's 403 and a route's own 403) gets
 * both descriptions, never one replacing the other. JSON content whatever the route produces:
 * errors are always JSON (EnvelopeErrorFilter), also on the HTML unsubscribe pages.
 */
export function ApiErrors(...docs: ErrorDocs[]): MethodDecorator & ClassDecorator {
  const merged = new Map<string, string[]>();
  for (const d of [...docs, ALWAYS]) {
    for (const [status, text] of Object.entries(d)) merged.set(status, [...(merged.get(status) ?? []), text]);
  }
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    if (descriptor) {
      ApiExtraModels(ErrorEnvelopeDto)(target, key!, descriptor);
      addTo(descriptor.value as object, merged);
      return;
    }
    // Class decorators run after the method decorators: the routes' own entries are already there.
    ApiExtraModels(ErrorEnvelopeDto)(target as never);
    const prototype = (target as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name !== 'constructor' && typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler)) addTo(handler, merged);
    }
  };
}
