// The global ValidationPipe of every app created by createServiceApp: Nest's pipe with the
// platform's options, plus the one check class-validator leaves out (items of nested arrays).
import { HttpException, ValidationPipe, type ArgumentMetadata, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { validationExceptionFactory } from '@platform/errors';
import { getMetadataStorage, ValidationTypes, type ValidatorOptions } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** The options every app validates with: unknown properties refused, values transformed, errors in the app's shape. */
export const PLATFORM_VALIDATION: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: validationExceptionFactory,
};

/** A class (the constructor class-validator keys its metadata by). */
type Target = abstract new (...args: never[]) => unknown;
type Metadatas = (target: Target) => ValidationMetadata[];

const CONTAINERS: unknown[] = [Array, Object, Set, Map];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Errors for the values of `@ValidateNested()` properties that class-validator lets through although
 * they cannot be the object the DTO declares: an array inside the array (`"contacts": [[]]` is
 * validated as an empty list and reaches the service as a contact without fields), and an array
 * where the property's declared type is a class (`"settings": []`). Primitives and null are already
 * class-validator's own `nestedValidation` errors. Walks nested objects to any depth (bodies are at
 * most MAX_JSON_DEPTH levels deep); errors have class-validator's shape, so the dotted path of the
 * field (`contacts.0`) comes out of the exception factory as for any other error.
 */
export function nestedShapeErrors(target: object, metadatasOf: Metadatas): ValidationError[] {
  const metadatas = metadatasOf(target.constructor as Target);
  const errors: ValidationError[] = [];
  const checked = new Set<string>();
  for (const metadata of metadatas) {
    const property = metadata.propertyName;
    if (metadata.type !== ValidationTypes.NESTED_VALIDATION || checked.has(property)) continue;
    checked.add(property);
    const value = (target as Record<string, unknown>)[property];
    if (!isObject(value) || !conditionsHold(metadatas, target, property, value)) continue;
    const error = shapeError(target, property, value, metadatasOf);
    if (error) errors.push(error);
  }
  return errors;
}

function shapeError(target: object, property: string, value: Record<string, unknown>, metadatasOf: Metadatas): ValidationError | undefined {
  if (!Array.isArray(value)) {
    const children = nestedShapeErrors(value, metadatasOf);
    return children.length ? error(property, children) : undefined;
  }
  const declared: unknown = Reflect.getMetadata?.('design:type', target, property);
  if (typeof declared === 'function' && !CONTAINERS.includes(declared)) {
    return error(property, [], `${property} must be an object, not an array`);
  }
  const children: ValidationError[] = [];
  value.forEach((item: unknown, index) => {
    if (Array.isArray(item)) children.push(error(String(index), [], `each value in ${property} must be an object, not an array`));
    else if (isObject(item)) {
      const nested = nestedShapeErrors(item, metadatasOf);
      if (nested.length) children.push(error(String(index), nested));
    }
  });
  return children.length ? error(property, children) : undefined;
}

/** class-validator skips a property whose condition (`@IsOptional()`, `@ValidateIf()`) rules it out; so does this check. */
function conditionsHold(metadatas: ValidationMetadata[], target: object, property: string, value: unknown): boolean {
  return metadatas.every(
    (m) => m.type !== ValidationTypes.CONDITIONAL_VALIDATION || m.propertyName !== property || (m.constraints[0] as (o: object, v: unknown) => boolean)(target, value),
  );
}

function error(property: string, children: ValidationError[], message?: string): ValidationError {
  return { property, children, ...(message ? { constraints: { [ValidationTypes.NESTED_VALIDATION]: message } } : {}) };
}

/**
 * Errors for numbers no column or counter can hold: beyond ±Number.MAX_SAFE_INTEGER (2^53 − 1), or
 * not finite. `?offset=99999999999999999999` is an integer to class-validator (1e20) but no
 * PostgreSQL bigint, and would reach the query as a 500; a DTO's own `@Max()` stays the tighter bound.
 * Walks the validated object's own properties, nested objects and arrays included, to any depth.
 */
export function unsafeNumberErrors(target: unknown): ValidationError[] {
  if (!isObject(target)) return [];
  const errors: ValidationError[] = [];
  for (const [property, value] of Object.entries(target)) {
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        errors.push({ property, children: [], constraints: { max: `${property} must be a finite number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}` } });
      }
    } else if (isObject(value)) {
      const children = unsafeNumberErrors(value);
      if (children.length) errors.push(error(property, children));
    }
  }
  return errors;
}

/**
 * Errors for the values a converter or validator may throw on — numbers JavaScript writes with an
 * exponent (`1e-7`, below 10^-6 in magnitude), objects whose `toString` or `valueOf` is data, not a
 * method — or, when there are none, one error for the whole value: used when class-transformer or
 * class-validator threw instead of answering, so the client gets a validation error.
 */
export function throwingValueErrors(target: unknown): ValidationError[] {
  const walk = (value: unknown): ValidationError[] => {
    if (!isObject(value)) return [];
    const out: ValidationError[] = [];
    for (const [property, v] of Object.entries(value)) {
      if (typeof v === 'number' && /e/i.test(String(v))) {
        out.push({ property, children: [], constraints: { isNumber: `${property} must be a plain decimal number (${String(v)} is written with an exponent)` } });
      } else if (isObject(v) && ['toString', 'valueOf'].some((k) => Object.prototype.hasOwnProperty.call(v, k) && typeof v[k] !== 'function')) {
        out.push({ property, children: [], constraints: { invalid: `${property} must not be an object with a "toString" or "valueOf" field` } });
      } else if (isObject(v)) {
        const children = walk(v);
        if (children.length) out.push(error(property, children));
      }
    }
    return out;
  };
  const found = walk(target);
  return found.length ? found : [{ property: 'body', children: [], constraints: { invalid: 'the request holds a value that cannot be validated' } }];
}

/**
 * Adds `extra` into class-validator's error tree: an error with its own message replaces what was
 * found at its path (the inside of an array that should have been an object says nothing useful).
 */
export function mergeValidationErrors(base: ValidationError[], extra: ValidationError[]): ValidationError[] {
  const out = [...base];
  for (const e of extra) {
    const at = out.findIndex((b) => b.property === e.property);
    if (at === -1) out.push(e);
    else if (e.constraints) out[at] = e;
    else out[at] = { ...out[at], children: mergeValidationErrors(out[at].children ?? [], e.children ?? []) };
  }
  return out;
}

/**
 * Nest's ValidationPipe with the platform's options (PLATFORM_VALIDATION, overridable) that also
 * refuses the values of nested properties that are not objects (nestedShapeErrors) and numbers
 * beyond the safe range (unsafeNumberErrors), in the same list as every other validation error. Installed globally for every app; use it for a local pipe too.
 */
export class PlatformValidationPipe extends ValidationPipe {
  constructor(options: ValidationPipeOptions = {}) {
    super({ ...PLATFORM_VALIDATION, ...options });
  }

  /**
   * A converter or validator that throws on a value is a library's bug, never the client's 500 (both
   * found by `npm run fuzz`): `@Type(() => Number)` on `{"toString": 1}` cannot convert the object,
   * `@IsNumber({ maxDecimalPlaces })` reads the digits after the "." of `String(1e-22)`, which has none.
   * The request is refused as invalid, naming the values at fault (throwingValueErrors).
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof HttpException) throw err;
      throw this.exceptionFactory(throwingValueErrors(value));
    }
  }

  protected override async validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> {
    const errors = await super.validate(object, validatorOptions);
    const storage = getMetadataStorage();
    const cache = new Map<Target, ValidationMetadata[]>();
    const { always = false, strictGroups = false, groups } = validatorOptions ?? {};
    const metadatasOf: Metadatas = (target) => {
      let metadatas = cache.get(target);
      if (!metadatas) cache.set(target, (metadatas = storage.getTargetValidationMetadatas(target, '', always, strictGroups, groups)));
      return metadatas;
    };
    const extra = [...nestedShapeErrors(object, metadatasOf), ...unsafeNumberErrors(object)];
    return extra.length ? mergeValidationErrors(errors, extra) : errors;
  }
}
