/**
 * What the portal can say about a tracking number from the service's own records. Plain functions.
 *
 * Kind: an 11-character container number (3 letters, U/J/Z, 7 digits) must carry a valid ISO 6346
 * check digit; any other 6–20 letters and digits (at least one digit) is a bill of lading or booking
 * number, told apart by where the tasks name it.
 *
 * Status from the tasks that name it: none → `NO_RECORDS`; an open (not DONE) HIGH task → `ATTENTION`;
 * another open task → `FOLLOW_UP`; all done → `CLEAR`.
 */
import { containerCheckDigit, isValidContainerNumber } from '../tasks/shipment-refs';
import type { Category, Priority, TaskStatus } from '../tasks/task-values';
import { detectCarrier, type Carrier } from './carriers';

export type TrackingKind = 'container' | 'bill_of_lading' | 'booking' | 'reference';
export type TrackingStatus = 'NO_RECORDS' | 'ATTENTION' | 'FOLLOW_UP' | 'CLEAR';

export type ParsedTrackingNumber =
  | { ok: true; reference: string; kind: 'container' | 'reference'; carrier: Carrier | null }
  | { ok: false; reason: string; suggestion: string };

export function parseTrackingNumber(input: string): ParsedTrackingNumber {
  const reference = input.replace(/[\s-]/g, '').toUpperCase();
  if (/^[A-Z]{3}[UJZ]\d{7}$/.test(reference)) {
    if (!isValidContainerNumber(reference)) {
      return {
        ok: false,
        reason: `${reference} is not a valid container number: its ISO 6346 check digit should be ${containerCheckDigit(reference.slice(0, 10))}`,
        suggestion: 'Check the container number for a typing error (the last digit is a check digit).',
      };
    }
    return { ok: true, reference, kind: 'container', carrier: detectCarrier(reference) };
  }
  if (/^[A-Z0-9]{6,20}$/.test(reference) && /\d/.test(reference)) {
    return { ok: true, reference, kind: 'reference', carrier: detectCarrier(reference) };
  }
  return {
    ok: false,
    reason: `${input.slice(0, 40)} is not a container, bill of lading or booking number`,
    suggestion: 'Send a container number such as CSQU3054383, or a bill of lading or booking number (6 to 20 letters and digits).',
  };
}

export interface TaskFact {
  status: TaskStatus;
  priority: Priority;
  category: Category;
  updated_at: string;
  references: { containers: string[]; bills_of_lading: string[]; bookings: string[] };
}

export interface TrackingSummary {
  kind: TrackingKind;
  status: TrackingStatus;
  found: boolean;
  records: number;
  open_records: number;
  open_categories: Category[];
  last_update: string | null;
}

export function summariseTracking(reference: string, kind: 'container' | 'reference', tasks: TaskFact[]): TrackingSummary {
  const open = tasks.filter((t) => t.status !== 'DONE');
  let resolvedKind: TrackingKind = kind;
  if (kind === 'reference') {
    if (tasks.some((t) => t.references.bills_of_lading.includes(reference))) resolvedKind = 'bill_of_lading';
    else if (tasks.some((t) => t.references.bookings.includes(reference))) resolvedKind = 'booking';
  }
  const status: TrackingStatus =
    tasks.length === 0 ? 'NO_RECORDS' : open.some((t) => t.priority === 'HIGH') ? 'ATTENTION' : open.length > 0 ? 'FOLLOW_UP' : 'CLEAR';
  return {
    kind: resolvedKind,
    status,
    found: tasks.length > 0,
    records: tasks.length,
    open_records: open.length,
    open_categories: [...new Set(open.map((t) => t.category))],
    last_update: tasks.reduce<string | null>((latest, t) => (latest === null || t.updated_at > latest ? t.updated_at : latest), null),
  };
}
