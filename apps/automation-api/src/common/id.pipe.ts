import { Param, type PipeTransform } from '@nestjs/common';
import { PARAMTYPES_METADATA } from '@nestjs/common/constants';
import { ApiParam } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';

/** Largest id of a `serial` column (PostgreSQL int4). */
export const MAX_INT4 = 2_147_483_647;

/** Parses a positive int4 id from the path text; anything else is a 400 naming the parameter (never a database error). */
export class PositiveIdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}

  transform(value: string): number {
    const id = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!(id >= 1 && id <= MAX_INT4)) throw new ApiError(400, 'VALIDATION_ERROR', `${this.name} must be a positive integer (1 to ${MAX_INT4})`);
    return id;
  }
}

/**
 * A positive integer path parameter (`@IdParam() id: number`); anything else is a 400 naming it.
 * The pipe must see the text as sent: the global ValidationPipe would turn a parameter declared as
 * `number` into `+value` first (`1e3` → 1000, `0x10` → 16). So the parameter is registered with the
 * type String, and documented as an integer.
 */
export const IdParam =
  (name = 'id'): ParameterDecorator =>
  (target, key, index) => {
    Param(name, new PositiveIdPipe(name))(target, key, index);
    if (key === undefined) return;
    const types: unknown[] = Reflect.getMetadata(PARAMTYPES_METADATA, target, key) ?? [];
    types[index] = String;
    Reflect.defineMetadata(PARAMTYPES_METADATA, types, target, key);
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (descriptor) ApiParam({ name, schema: { type: 'integer', minimum: 1, maximum: MAX_INT4 } })(target, key, descriptor);
  };
