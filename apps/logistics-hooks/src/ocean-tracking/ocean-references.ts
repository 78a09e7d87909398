/**
 * What `/ocean-track` (and the public portal) asks the carrier: the kind of reference, its carrier
 * and the DCSA filter. Plain functions.
 *
 * - Kind: `reference_type` when given; else 11 characters shaped like a container number (3 letters,
 *   U/J/Z, 7 digits) → container (its ISO 6346 check digit must be right: else an error naming the
 *   expected digit); a reference starting with a carrier's SCAC code (MAEU, MEDU, ONEY, …) → bill of
 *   lading; any other 6–35 letters/digits → booking (carriers' booking numbers are mostly digits).
 * - Carrier: the body's `carrier` (the spec's codes, case and separators ignored: `MAERSK`, `MSC`,
 *   `ONE`, `CMA` (also `CMA-CGM`), `HAPAG` (also `HAPAG-LLOYD`, `HLAG`), `EVERGREEN`, `YANG_MING`, …),
 *   else the container's owner prefix or the bill of lading's SCAC prefix (the spec's table).
 */
import { containerCheckDigit, isValidContainerNumber, BL_CARRIER_PREFIXES } from '../tasks/shipment-refs';
import { CARRIER_PREFIXES, detectCarrier } from './carriers';
import type { ReferenceKind } from './dcsa-mapping';

/** Carriers that serve (or have announced) DCSA T&T beyond the prefix table. */
export const EXTRA_CARRIERS: Record<string, string> = { HAPAG: 'Hapag-Lloyd' };
export const KNOWN_CARRIERS: string[] = [...Object.keys(CARRIER_PREFIXES), ...Object.keys(EXTRA_CARRIERS)];

const ALIASES: Record<string, string> = {
  CMA_CGM: 'CMA',
  CMACGM: 'CMA',
  HAPAG_LLOYD: 'HAPAG',
  HAPAGLLOYD: 'HAPAG',
  HLAG: 'HAPAG',
  HLCU: 'HAPAG',
  YANGMING: 'YANG_MING',
  WANHAI: 'WAN_HAI',
  OCEAN_NETWORK_EXPRESS: 'ONE',
  MAEU: 'MAERSK',
  MSCU: 'MSC',
};

/** The carrier code for a name as callers write it, or null when unknown. */
export function normalizeCarrier(input: string): string | null {
  const code = input.trim().toUpperCase().replace(/[\s-]+/g, '_');
  const resolved = ALIASES[code] ?? code;
  return KNOWN_CARRIERS.includes(resolved) ? resolved : null;
}

export type OceanQuery =
  | { ok: true; reference: string; kind: ReferenceKind; carrier: string | null }
  | { ok: false; code: 'INVALID_TRACKING_NUMBER' | 'UNKNOWN_CARRIER'; message: string; suggestion: string };

const CONTAINER_SHAPE = /^[A-Z]{3}[UJZ]\d{7}$/;

export function parseOceanQuery(trackingNumber: string, carrier?: string | null, referenceType?: ReferenceKind | null): OceanQuery {
  const reference = trackingNumber.replace(/[\s-]/g, '').toUpperCase();
  let kind: ReferenceKind;
  if (referenceType) kind = referenceType;
  else if (CONTAINER_SHAPE.test(reference)) kind = 'container';
  else if (BL_CARRIER_PREFIXES.includes(reference.slice(0, 4)) && reference.length > 4) kind = 'bill_of_lading';
  else kind = 'booking';

  if (kind === 'container') {
    if (!CONTAINER_SHAPE.test(reference)) {
      return { ok: false, code: 'INVALID_TRACKING_NUMBER', message: `${reference.slice(0, 40)} is not a container number (3 letters, U, J or Z, 7 digits)`, suggestion: 'Send an ISO 6346 container number such as CSQU3054383.' };
    }
    if (!isValidContainerNumber(reference)) {
      return {
        ok: false,
        code: 'INVALID_TRACKING_NUMBER',
        message: `${reference} is not a valid container number: its ISO 6346 check digit should be ${containerCheckDigit(reference.slice(0, 10))}`,
        suggestion: 'Check the container number for a typing error (the last digit is a check digit).',
      };
    }
  } else if (!/^[A-Z0-9]{4,35}$/.test(reference) || (kind === 'bill_of_lading' && reference.length > 20)) {
    return {
      ok: false,
      code: 'INVALID_TRACKING_NUMBER',
      message: `${trackingNumber.slice(0, 40)} is not a ${kind === 'booking' ? 'booking' : 'bill of lading'} number (letters and digits, at most ${kind === 'booking' ? 35 : 20})`,
      suggestion: 'Send a container number, a bill of lading (≤ 20 characters) or a booking number (≤ 35 characters).',
    };
  }

  let code: string | null = null;
  if (carrier) {
    code = normalizeCarrier(carrier);
    if (!code) {
      return { ok: false, code: 'UNKNOWN_CARRIER', message: `Unknown carrier ${JSON.stringify(carrier.slice(0, 40))}`, suggestion: `Use one of ${KNOWN_CARRIERS.join(', ')}, or leave carrier out to detect it from the container prefix.` };
    }
  } else {
    code = detectCarrier(reference)?.code ?? (reference.startsWith('HLCU') || reference.startsWith('HLXU') ? 'HAPAG' : null);
  }
  return { ok: true, reference, kind, carrier: code };
}

/** The carrier's display name. */
export function carrierName(code: string): string {
  return CARRIER_PREFIXES[code]?.name ?? EXTRA_CARRIERS[code] ?? code;
}
