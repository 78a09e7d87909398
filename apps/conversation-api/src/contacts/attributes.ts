import type { FieldError } from '@platform/errors';

export type AttributeType = 'text' | 'number' | 'boolean' | 'date' | 'list' | 'link';
export const ATTRIBUTE_TYPES: AttributeType[] = ['text', 'number', 'boolean', 'date', 'list', 'link'];

export interface AttributeDefinition {
  key: string;
  type: AttributeType;
  /** The allowed values of a `list` attribute. */
  values: string[];
}

const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Checks one value against its definition; returns the problem or null. `null` always clears. */
function problem(def: AttributeDefinition, value: unknown): string | null {
  if (value === null) return null;
  switch (def.type) {
    case 'text':
      return typeof value === 'string' && value.length <= 5000 ? null : 'must be a text of at most 5000 characters';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value)) ? null : 'must be an ISO 8601 date';
    case 'list':
      return typeof value === 'string' && def.values.includes(value) ? null : `must be one of ${def.values.join(', ')}`;
    case 'link':
      return typeof value === 'string' && /^https?:\/\/\S+$/.test(value) && value.length <= 2000 ? null : 'must be an http(s) URL';
  }
}

/**
 * Validates a patch of custom attributes against the account's definitions: every key must be
 * defined and every value of its type (null removes the attribute). Returns the field errors.
 */
export function validateAttributes(defs: AttributeDefinition[], patch: Record<string, unknown>): FieldError[] {
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const def = byKey.get(key);
    if (!def) {
      errors.push({ field: `custom_attributes.${key}`, message: `${key} is not a defined attribute`, code: 'unknown_attribute' });
      continue;
    }
    const p = problem(def, value);
    if (p) errors.push({ field: `custom_attributes.${key}`, message: `${key} ${p}`, code: 'invalid_type' });
  }
  return errors;
}
