import { checkInvoice, type CheckName, type InvoiceContext } from './invoice-checks';
import type { InvoiceFields } from './invoice-fields';

const fields: InvoiceFields = {
  supplier: 'Transportes del Norte', invoice_number: 'INV-1', invoice_date: '2026-11-05', due_date: null, currency: 'MXN',
  subtotal: 10000, tax: 1600, tax_rate_stated: 16, total: 11600, shipment_ref: 'MSCU1234566',
};
const ctx: InvoiceContext = { duplicateOf: null, paid: null, expectation: { expected_amount: 11600, currency: 'MXN', departure_date: '2026-11-01', arrival_date: '2026-11-20' } };
const resultOf = (name: CheckName, f: Partial<InvoiceFields> = {}, c: Partial<InvoiceContext> = {}) => checkInvoice({ ...fields, ...f }, { ...ctx, ...c }).checks.find((x) => x.check === name)!.result;

describe('invoice exception checks', () => {
  it('a clean invoice passes every check', () => {
    const r = checkInvoice(fields, ctx);
    expect(r.outcome).toBe('success');
    expect(r.checks.map((c) => c.result)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass']);
  });

  it.each<[string, CheckName, Partial<InvoiceFields>, Partial<InvoiceContext>, string]>([
    ['a duplicate blocks', 'DUPLICATE_INVOICE', {}, { duplicateOf: 'invoice 1 of 2026-11-06' }, 'block'],
    ['a paid invoice blocks', 'ALREADY_PAID', {}, { paid: { paid_at: '2026-11-10' } }, 'block'],
    ['variance 9.99 % passes', 'AMOUNT_TOLERANCE', { total: 11600 * 1.0999 }, {}, 'pass'],
    ['variance 10 % warns', 'AMOUNT_TOLERANCE', { total: 12760 }, {}, 'warn'],
    ['variance 25 % warns', 'AMOUNT_TOLERANCE', { total: 14500 }, {}, 'warn'],
    ['variance 25.01 % blocks', 'AMOUNT_TOLERANCE', { total: 14501.16 }, {}, 'block'],
    ['variance below the expected amount counts too', 'AMOUNT_TOLERANCE', { total: 8000 }, {}, 'block'],
    ['no expected amount skips', 'AMOUNT_TOLERANCE', {}, { expectation: null }, 'skipped'],
    ['another currency warns', 'CURRENCY_MISMATCH', { currency: 'USD' }, {}, 'warn'],
    ['no expected currency skips', 'CURRENCY_MISMATCH', {}, { expectation: { ...ctx.expectation!, currency: null } }, 'skipped'],
    ['IVA 8 % warns', 'TAX_IVA', { tax: 800, total: 10800, tax_rate_stated: 8 }, {}, 'warn'],
    ['IVA 16.4 % passes (0.5 points)', 'TAX_IVA', { tax: 1640, total: 11640, tax_rate_stated: null }, {}, 'pass'],
    ['subtotal + tax ≠ total warns', 'TAX_IVA', { total: 11700 }, {}, 'warn'],
    ['no subtotal skips', 'TAX_IVA', { subtotal: null }, {}, 'skipped'],
    ['dated before departure warns', 'DATE_BEFORE_DEPARTURE', { invoice_date: '2026-10-31' }, {}, 'warn'],
    ['dated on departure passes', 'DATE_BEFORE_DEPARTURE', { invoice_date: '2026-11-01' }, {}, 'pass'],
    ['181 days after arrival warns', 'DATE_TOO_OLD', { invoice_date: '2027-05-20' }, {}, 'warn'],
    ['180 days after arrival passes', 'DATE_TOO_OLD', { invoice_date: '2027-05-19' }, {}, 'pass'],
    ['no arrival date skips', 'DATE_TOO_OLD', {}, { expectation: { ...ctx.expectation!, arrival_date: null } }, 'skipped'],
  ])('%s', (_name, check, f, c, expected) => {
    expect(resultOf(check, f, c)).toBe(expected);
  });

  it('warnings alone keep the outcome success; any block blocks', () => {
    expect(checkInvoice({ ...fields, currency: 'USD', invoice_date: '2026-10-01' }, ctx).outcome).toBe('success');
    expect(checkInvoice(fields, { ...ctx, paid: { paid_at: '2026-11-10' } }).outcome).toBe('blocked');
  });
});
