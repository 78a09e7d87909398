import type { NormalizedError } from './normalize';

/** The longest error message answered (room for the 50 field errors the plain and detail shapes list); a longer one (one that quotes a large input) is cut with a note. */
export const MAX_MESSAGE_LENGTH = 4_000;
/** The longest `field` and `message` of one field error. */
export const MAX_FIELD_ERROR_LENGTH = 120;

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never split a surrogate pair: the answer stays valid UTF-8.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/**
 * The error with its message and field errors cut to a bounded length: an error that quotes what the
 * client sent (`Unknown action "aaaa…"` with 100 kB of it) must not answer a body as large as the
 * request. Applied by every filter of the platform, after the app's own adjustments.
 */
export function boundedError(error: NormalizedError): NormalizedError {
  const long = error.message.length > MAX_MESSAGE_LENGTH || error.errors?.some((e) => e.field.length > MAX_FIELD_ERROR_LENGTH || e.message.length > MAX_FIELD_ERROR_LENGTH);
  if (!long) return error;
  return {
    ...error,
    message: cut(error.message, MAX_MESSAGE_LENGTH),
    ...(error.errors
      ? { errors: error.errors.map((e) => ({ ...e, field: cut(e.field, MAX_FIELD_ERROR_LENGTH), message: cut(e.message, MAX_FIELD_ERROR_LENGTH) })) }
      : {}),
  };
}
