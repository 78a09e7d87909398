import { BadRequestException, type ValidationError } from '@nestjs/common';

/** One field-level problem, as doc 1's `error.errors[]` writes it. */
export interface FieldError {
  field: string;
  message: string;
  code: string;
}

/** Thrown by the global ValidationPipe; each filter maps it to its spec's status and shape. */
export class RequestValidationException extends BadRequestException {
  constructor(readonly errors: FieldError[]) {
    super(summarize(errors));
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

function summarize(errors: FieldError[]): string {
  if (errors.length === 0) return 'Validation failed';
  return errors.map(withPath).join('; ');
}

/** class-validator names only the last property (`email must be an email`); name the whole path instead. */
function withPath(error: FieldError): string {
  const last = error.field.split('.').pop() ?? error.field;
  if (error.field !== last && error.message.startsWith(`${last} `)) return `${error.field}${error.message.slice(last.length)}`;
  if (!error.message.includes(last)) return `${error.field}: ${error.message}`;
  return error.message;
}
