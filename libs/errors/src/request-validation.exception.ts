import { BadRequestException, type ValidationError } from '@nestjs/common';

/** One field-level problem, as doc 1's `error.errors[]` writes it. */
export interface FieldError {
  field: string;
  message: string;
  code: string;
}

/**
 * Field errors listed in one error body at most: a body with 20,000 unknown keys gets 50 entries and
 * the count of the rest, not a 20,000-entry answer.
 */
export const MAX_FIELD_ERRORS = 50;

/** The first MAX_FIELD_ERRORS of `errors`, and how many were left out. */
export function capFieldErrors(errors: readonly FieldError[]): { errors: FieldError[]; omitted: number } {
  const listed = errors.slice(0, MAX_FIELD_ERRORS);
  return { errors: listed, omitted: errors.length - listed.length };
}

/** The words every shape uses for the problems left out of a capped list. */
export function omittedNote(omitted: number): string {
  return `${omitted} more ${omitted === 1 ? 'problem' : 'problems'} not listed`;
}

/**
 * Thrown by the global ValidationPipe; each filter maps it to its spec's status and shape. Lists at
 * most MAX_FIELD_ERRORS problems (in `errors` and the message); `omitted` counts the rest.
 */
export class RequestValidationException extends BadRequestException {
  readonly errors: FieldError[];
  readonly omitted: number;

  constructor(errors: FieldError[]) {
    const capped = capFieldErrors(errors);
    super(summarize(capped.errors, capped.omitted));
    this.errors = capped.errors;
    this.omitted = capped.omitted;
  }
}

/** class-validator constraint names mapped to short machine codes (zod-like, as doc 1's `invalid_string`). */
const CODES: Record<string, string> = {
  whitelistValidation: 'unrecognized_key',
  isDefined: 'required',
  isNotEmpty: 'required',
  isNotEmptyObject: 'required',
  isString: 'invalid_string',
  isEmail: 'invalid_string',
  isUrl: 'invalid_string',
  isUUID: 'invalid_string',
  matches: 'invalid_string',
  isDateString: 'invalid_date',
  isISO8601: 'invalid_date',
  isDate: 'invalid_date',
  isInt: 'invalid_type',
  isNumber: 'invalid_type',
  isNumberString: 'invalid_type',
  isBoolean: 'invalid_type',
  isArray: 'invalid_type',
  isObject: 'invalid_type',
  nestedValidation: 'invalid_type',
  isEnum: 'invalid_enum_value',
  isIn: 'invalid_enum_value',
  min: 'too_small',
  minLength: 'too_small',
  arrayMinSize: 'too_small',
  arrayNotEmpty: 'too_small',
  max: 'too_big',
  maxLength: 'too_big',
  arrayMaxSize: 'too_big',
};

export function validationCode(constraint: string): string {
  return CODES[constraint] ?? constraint.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Flattens class-validator's tree into field errors with dotted paths (`items.0.email`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      out.push({ field, message, code: validationCode(constraint) });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/** `exceptionFactory` for Nest's ValidationPipe. */
export function validationExceptionFactory(errors: ValidationError[]): RequestValidationException {
  return new RequestValidationException(flattenValidationErrors(errors));
}

function summarize(errors: FieldError[], omitted: number): string {
  if (errors.length === 0) return 'Validation failed';
  const listed = errors.map(withPath);
  return (omitted > 0 ? [...listed, omittedNote(omitted)] : listed).join('; ');
}

/** class-validator names only the last property (`email must be an email`); name the whole path instead. */
function withPath(error: FieldError): string {
  const last = error.field.split('.').pop() ?? error.field;
  if (error.field !== last && error.message.startsWith(`${last} `)) return `${error.field}${error.message.slice(last.length)}`;
  if (!error.message.includes(last)) return `${error.field}: ${error.message}`;
  return error.message;
}
