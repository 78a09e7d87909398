/** class-transformer helpers of the request DTOs: strings as sent, turned into what validators check. */

/** Trimmed; empty → undefined (an empty field counts as absent). */
export const trimmed = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() || undefined : value);

/** FastAPI's booleans: true/false, 1/0, yes/no, on/off (any case); anything else stays as sent, for the error. */
export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};

/** Digits → a number; anything else stays as sent, for the error. */
export const toInteger = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value);
