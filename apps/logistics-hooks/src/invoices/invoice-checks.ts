/**
 * The exception checks of an invoice (spec, part F). Plain functions.
 *
 * | check | severity | rule |
 * |---|---|---|
 * | DUPLICATE_INVOICE | block | the same supplier (case and spaces ignored) and invoice number was already processed successfully |
 * | ALREADY_PAID | block | a payment is recorded for that supplier and invoice number |
 * | AMOUNT_TOLERANCE | block above 25 %, warn from 10 % to 25 % | variance = abs(total − expected) / expected, against the shipment's expected amount |
 * | CURRENCY_MISMATCH | warn | the invoice's currency differs from the expected one |
 * | TAX_IVA | warn | the tax rate (tax / subtotal, or the rate stated) differs from 16 % by more than 0.5 points, or subtotal + tax differs from total by more than 0.01 |
 * | DATE_BEFORE_DEPARTURE | warn | the invoice date is before the shipment's departure |
 * | DATE_TOO_OLD | warn | the invoice date is more than 180 days after the shipment's arrival |
 *
 * A check whose inputs are missing (no expectation, no subtotal) is not run and is listed as `skipped`.
 * Outcome: any block → `blocked`; else `success` (warnings listed).
 */
import type { InvoiceFields } from './invoice-fields';

export type CheckName = 'DUPLICATE_INVOICE' | 'ALREADY_PAID' | 'AMOUNT_TOLERANCE' | 'CURRENCY_MISMATCH' | 'TAX_IVA' | 'DATE_BEFORE_DEPARTURE' | 'DATE_TOO_OLD';

export interface CheckResult {
  check: CheckName;
  result: 'pass' | 'warn' | 'block' | 'skipped';
  message: string;
}

export interface InvoiceContext {
  duplicateOf: string | null;
  paid: { paid_at: string } | null;
  expectation: { expected_amount: number | null; currency: string | null; departure_date: string | null; arrival_date: string | null } | null;
}

export interface CheckThresholds {
  warnVariancePct: number;
  blockVariancePct: number;
  taxRatePct: number;
  maxDaysAfterArrival: number;
}

export const DEFAULT_THRESHOLDS: CheckThresholds = { warnVariancePct: 10, blockVariancePct: 25, taxRatePct: 16, maxDaysAfterArrival: 180 };

const DAY = 86_400_000;

export function checkInvoice(f: InvoiceFields, ctx: InvoiceContext, th: CheckThresholds = DEFAULT_THRESHOLDS): { outcome: 'success' | 'blocked'; checks: CheckResult[] } {
  const checks: CheckResult[] = [];
  const add = (check: CheckName, result: CheckResult['result'], message: string) => checks.push({ check, result, message });
  const e = ctx.expectation;

  add('DUPLICATE_INVOICE', ctx.duplicateOf ? 'block' : 'pass', ctx.duplicateOf ? `Invoice ${f.invoice_number} of ${f.supplier} was already processed (${ctx.duplicateOf})` : 'First time this supplier and number are seen');
  add('ALREADY_PAID', ctx.paid ? 'block' : 'pass', ctx.paid ? `Invoice ${f.invoice_number} was paid on ${ctx.paid.paid_at}` : 'No payment recorded for it');

  if (!e || e.expected_amount === null || e.expected_amount <= 0 || f.total === null) {
    add('AMOUNT_TOLERANCE', 'skipped', 'No expected amount for the shipment');
  } else {
    const variance = (Math.abs(f.total - e.expected_amount) / e.expected_amount) * 100;
    const pct = Math.round(variance * 100) / 100;
    const result = variance > th.blockVariancePct ? 'block' : variance >= th.warnVariancePct ? 'warn' : 'pass';
    add('AMOUNT_TOLERANCE', result, `Total ${f.total} vs expected ${e.expected_amount}: ${pct} % variance (warn from ${th.warnVariancePct} %, block above ${th.blockVariancePct} %)`);
  }

  if (!e?.currency || !f.currency) add('CURRENCY_MISMATCH', 'skipped', 'No expected currency');
  else add('CURRENCY_MISMATCH', e.currency === f.currency ? 'pass' : 'warn', e.currency === f.currency ? `Currency ${f.currency} as expected` : `Invoiced in ${f.currency}, expected ${e.currency}`);

  if (f.subtotal === null || f.tax === null || f.total === null) {
    add('TAX_IVA', 'skipped', 'Subtotal or tax not found on the invoice');
  } else {
    const rate = f.subtotal > 0 ? (f.tax / f.subtotal) * 100 : f.tax_rate_stated ?? 0;
    const problems: string[] = [];
    if (Math.abs(rate - th.taxRatePct) > 0.5) problems.push(`tax rate ${Math.round(rate * 100) / 100} % instead of ${th.taxRatePct} %`);
    if (f.tax_rate_stated !== null && Math.abs(f.tax_rate_stated - th.taxRatePct) > 0.5 && !problems.length) problems.push(`stated rate ${f.tax_rate_stated} % instead of ${th.taxRatePct} %`);
    if (Math.abs(f.subtotal + f.tax - f.total) > 0.01) problems.push(`subtotal ${f.subtotal} + tax ${f.tax} ≠ total ${f.total}`);
    add('TAX_IVA', problems.length ? 'warn' : 'pass', problems.length ? problems.join('; ') : `IVA ${th.taxRatePct} % and the arithmetic check out`);
  }

  if (!e?.departure_date || !f.invoice_date) add('DATE_BEFORE_DEPARTURE', 'skipped', 'No departure date for the shipment');
  else add('DATE_BEFORE_DEPARTURE', f.invoice_date < e.departure_date ? 'warn' : 'pass', f.invoice_date < e.departure_date ? `Invoice dated ${f.invoice_date}, before the departure on ${e.departure_date}` : 'Dated after the departure');

  if (!e?.arrival_date || !f.invoice_date) {
    add('DATE_TOO_OLD', 'skipped', 'No arrival date for the shipment');
  } else {
    const days = Math.floor((Date.parse(f.invoice_date) - Date.parse(e.arrival_date)) / DAY);
    add('DATE_TOO_OLD', days > th.maxDaysAfterArrival ? 'warn' : 'pass', days > th.maxDaysAfterArrival ? `Invoice dated ${days} days after the arrival (more than ${th.maxDaysAfterArrival})` : `Within ${th.maxDaysAfterArrival} days of the arrival`);
  }

  return { outcome: checks.some((c) => c.result === 'block') ? 'blocked' : 'success', checks };
}
