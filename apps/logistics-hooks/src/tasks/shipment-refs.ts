/**
 * Shipment references in free text: ISO 6346 container numbers (only those whose check digit is
 * right), bills of lading and booking numbers. Plain functions, no I/O.
 *
 * - Container: owner code (3 letters), category (`U`, `J` or `Z`), 6-digit serial, check digit;
 *   written together or with spaces/hyphens (`MSCU 123456-7`). The check digit is ISO 6346's:
 *   letters map to 10…38 skipping multiples of 11, each of the 10 characters is weighted 2^position,
 *   the sum modulo 11 (10 counts as 0) must equal the last digit.
 * - Bill of lading: the token after `B/L`, `BL`, `BOL`, `HBL`, `MBL`, `bill of lading` (optionally
 *   `no.`, `number`, `#`, `:`), or a token that starts with a carrier's SCAC code (MEDU, MAEU, ONEY, …)
 *   and is not shaped like a container number.
 * - Booking: the token after `booking`, `bkg`, `booking ref`, `reserva` (same separators).
 * Tokens must be 6 to 20 letters/digits with at least one digit. Each reference is listed once.
 */

export interface ShipmentRefs {
  containers: string[];
  billsOfLading: string[];
  bookings: string[];
}

const LETTER_VALUES: Record<string, number> = (() => {
  const values: Record<string, number> = {};
  let v = 10;
  for (const letter of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
    if (v % 11 === 0) v++;
    values[letter] = v++;
  }
  return values;
})();

/** The ISO 6346 check digit of the first 10 characters (`MSCU123456`), or null when they are malformed. */
export function containerCheckDigit(first10: string): number | null {
  const s = first10.toUpperCase();
  if (!/^[A-Z]{3}[UJZ]\d{6}$/.test(s)) return null;
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const ch = s[i];
    const value = i < 4 ? LETTER_VALUES[ch] : Number(ch);
    sum += value * 2 ** i;
  }
  return (sum % 11) % 10;
}

/** True for an 11-character container number (`CSQU3054383`) whose check digit is right. */
export function isValidContainerNumber(value: string): boolean {
  const s = value.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z]{3}[UJZ]\d{7}$/.test(s)) return false;
  return containerCheckDigit(s.slice(0, 10)) === Number(s[10]);
}

/** Carrier SCAC codes that prefix their bills of lading. */
export const BL_CARRIER_PREFIXES = [
  'MEDU', 'MSCU', 'MAEU', 'ONEY', 'COSU', 'CMDU', 'EGLV', 'HLCU', 'OOLU', 'YMLU', 'ZIMU', 'HDMU', 'WHLC', 'SMLM', 'ANNU',
];

const CONTAINER_IN_TEXT = /\b([A-Z]{3}[UJZ])[\s-]?(\d{6})[\s-]?(\d)\b/gi;
const SEPARATOR = String.raw`\s*(?:no\.?|number|nr\.?|num\.?|#|:)?\s*[:#]?\s*`;
const BL_KEYWORD = new RegExp(String.raw`\b(?:bill\s+of\s+lading|B\s*/\s*L|HBL|MBL|BOL|BL)\b` + SEPARATOR + String.raw`([A-Z0-9][A-Z0-9-]{4,24})`, 'gi');
const BOOKING_KEYWORD = new RegExp(String.raw`\b(?:booking(?:\s+ref(?:erence)?)?|bkg|reserva)\b` + SEPARATOR + String.raw`([A-Z0-9][A-Z0-9-]{4,24})`, 'gi');
const CARRIER_BL = new RegExp(String.raw`\b((?:${BL_CARRIER_PREFIXES.join('|')})[A-Z0-9]{6,16})\b`, 'g');

function plausible(token: string): string | null {
  const t = token.replace(/-+$/, '').toUpperCase();
  const compact = t.replace(/-/g, '');
  if (compact.length < 6 || compact.length > 20) return null;
  if (!/\d/.test(compact)) return null;
  return t;
}

const containerShaped = (s: string) => /^[A-Z]{3}[UJZ]\d{7}$/.test(s.replace(/[\s-]/g, ''));

/** Every shipment reference found in `text`, in order of appearance, each once. */
export function extractShipmentRefs(text: string): ShipmentRefs {
  const containers = new Set<string>();
  for (const m of text.matchAll(CONTAINER_IN_TEXT)) {
    const value = `${m[1]}${m[2]}${m[3]}`.toUpperCase();
    if (isValidContainerNumber(value)) containers.add(value);
  }
  const billsOfLading = new Set<string>();
  const bookings = new Set<string>();
  const collect = (re: RegExp, into: Set<string>) => {
    for (const m of text.matchAll(re)) {
      const token = plausible(m[1]);
      if (token && !containerShaped(token)) into.add(token);
    }
  };
  collect(BOOKING_KEYWORD, bookings);
  collect(BL_KEYWORD, billsOfLading);
  for (const m of text.toUpperCase().matchAll(CARRIER_BL)) {
    const token = plausible(m[1]);
    if (token && !containerShaped(token) && !bookings.has(token)) billsOfLading.add(token);
  }
  for (const b of bookings) billsOfLading.delete(b);
  return { containers: [...containers], billsOfLading: [...billsOfLading], bookings: [...bookings] };
}

/** All references as one list (containers, then bills of lading, then bookings). */
export function allRefs(refs: ShipmentRefs): string[] {
  return [...refs.containers, ...refs.billsOfLading, ...refs.bookings];
}
