import { ValidateIf } from 'class-validator';

/** Optional but not null: an absent property is skipped, a null one is validated (and refused by the checks after it). */
export function IsOptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}
