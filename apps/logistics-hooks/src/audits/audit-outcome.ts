/**
 * Arrival-notice audit: the service's own checks of a parsed arrival notice, merged with checks run
 * upstream, the outcome (spec, part F) and a score. Plain functions.
 *
 * Own checks (`stop` ones stop processing):
 * | check | stop | fails when |
 * |---|---|---|
 * | SHIPMENT_REFERENCE | yes | no container, bill of lading or booking number; or a container whose ISO 6346 check digit is wrong |
 * | CONSIGNEE | no | no consignee |
 * | ETA | no | no ETA, or not a date |
 * | CHARGES | no | a charge without a positive amount or without a currency |
 * | TELEX_RELEASE | no | (freight jobs only) the telex release is not confirmed — also what makes the outcome FINANCIAL_PENDING |
 *
 * Upstream checks `{name, stop_processing, passed?, message?}`: `passed` absent counts as failed (a
 * check is reported because it found something); an own check of the same name is replaced by it.
 *
 * Outcome, first rule that holds: a failed check with `stop_processing` → `EXCEPTION`; a freight job
 * without telex release → `FINANCIAL_PENDING`; another failed check → `PARTIAL_SUCCESS`; else `SUCCESS`.
 * Score: 100 − 40 per failed stopping check − 25 when the telex release is pending − 10 per other
 * failed check, never below 0.
 */
import { isValidContainerNumber } from '../tasks/shipment-refs';

export type AuditOutcome = 'EXCEPTION' | 'FINANCIAL_PENDING' | 'PARTIAL_SUCCESS' | 'SUCCESS';

export interface AuditCheck {
  name: string;
  stop_processing: boolean;
  passed: boolean;
  message: string;
  source: 'service' | 'upstream';
}

export interface ArrivalNotice {
  job_type?: string;
  containers?: string[];
  bill_of_lading?: string;
  booking?: string;
  consignee?: string;
  eta?: string;
  telex_release?: boolean;
  charges?: { description?: string; amount?: number; currency?: string }[];
}

export interface UpstreamCheck {
  name: string;
  stop_processing: boolean;
  passed?: boolean;
  message?: string;
}

export const isFreight = (n: ArrivalNotice): boolean => (n.job_type ?? '').trim().toLowerCase() === 'freight';

export function ownChecks(n: ArrivalNotice): AuditCheck[] {
  const checks: AuditCheck[] = [];
  const add = (name: string, stop: boolean, passed: boolean, message: string) => checks.push({ name, stop_processing: stop, passed, message, source: 'service' });
  const containers = n.containers ?? [];
  const bad = containers.filter((c) => !isValidContainerNumber(c));
  const anyRef = containers.length > 0 || !!n.bill_of_lading?.trim() || !!n.booking?.trim();
  add(
    'SHIPMENT_REFERENCE',
    true,
    anyRef && bad.length === 0,
    !anyRef ? 'No container, bill of lading or booking number' : bad.length ? `Container number(s) with a wrong check digit: ${bad.join(', ')}` : 'Shipment references are valid',
  );
  add('CONSIGNEE', false, !!n.consignee?.trim(), n.consignee?.trim() ? 'Consignee present' : 'No consignee');
  const etaOk = !!n.eta && !Number.isNaN(Date.parse(n.eta));
  add('ETA', false, etaOk, etaOk ? 'ETA present' : 'No valid ETA');
  const badCharges = (n.charges ?? []).filter((c) => !(typeof c.amount === 'number' && c.amount > 0) || !c.currency);
  add('CHARGES', false, badCharges.length === 0, badCharges.length ? `${badCharges.length} charge(s) without a positive amount or a currency` : 'Charges complete');
  if (isFreight(n)) add('TELEX_RELEASE', false, n.telex_release === true, n.telex_release === true ? 'Telex release confirmed' : 'Freight job without telex release');
  return checks;
}

export function mergeChecks(own: AuditCheck[], upstream: UpstreamCheck[]): AuditCheck[] {
  const fromUpstream = upstream.map((u): AuditCheck => ({ name: u.name, stop_processing: u.stop_processing, passed: u.passed === true, message: u.message ?? (u.passed === true ? 'passed upstream' : 'failed upstream'), source: 'upstream' }));
  const names = new Set(fromUpstream.map((c) => c.name.toUpperCase()));
  return [...fromUpstream, ...own.filter((c) => !names.has(c.name.toUpperCase()))];
}

export function auditOutcome(checks: AuditCheck[], notice: ArrivalNotice): { outcome: AuditOutcome; score: number } {
  const failed = checks.filter((c) => !c.passed);
  const stops = failed.filter((c) => c.stop_processing).length;
  const telexPending = isFreight(notice) && notice.telex_release !== true;
  const minor = failed.filter((c) => !c.stop_processing && c.name.toUpperCase() !== 'TELEX_RELEASE').length;
  const score = Math.max(0, 100 - 40 * stops - (telexPending ? 25 : 0) - 10 * minor);
  const outcome: AuditOutcome = stops > 0 ? 'EXCEPTION' : telexPending ? 'FINANCIAL_PENDING' : minor > 0 ? 'PARTIAL_SUCCESS' : 'SUCCESS';
  return { outcome, score };
}
