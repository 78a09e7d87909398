// POST /ap-invoice-process and /ap-expectations over HTTP on a throwaway PostgreSQL database, with PDFs
// built by the test (a readable invoice, a page without invoice fields) and a file that is not a PDF:
// Success, Blocked (duplicate, paid, amount) and Rejected, multipart and base64 JSON, the size cap.
import { createTestApp, textPdf, type TestApp } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';

const invoicePdf = (over: Record<string, string> = {}) => {
  const f = { supplier: 'Transportes del Norte SA de CV', number: 'INV-2026-0042', date: '2026-11-05', currency: 'MXN', subtotal: '10,000.00', tax: '1,600.00', total: '11,600.00', ref: 'MSCU1234566', ...over };
  return textPdf([
    `Supplier: ${f.supplier}`,
    `Invoice No: ${f.number}`,
    `Invoice Date: ${f.date}`,
    `Currency: ${f.currency}`,
    `Container ${f.ref}`,
    'Freight Manzanillo - CDMX',
    `Subtotal ${f.subtotal}`,
    `IVA 16% ${f.tax}`,
    `Total ${f.total} ${f.currency}`,
  ]);
};

describe('accounts-payable invoices', () => {
  let t: TestApp<LogisticsHooksConfig>;
  const upload = (pdf: Buffer, name = 'invoice.pdf') => t.http.post('/ap-invoice-process').field('api_key', API_KEY).attach('file', pdf, { filename: name, contentType: 'application/pdf' });
  const asJson = (pdf: Buffer) => t.http.post('/ap-invoice-process').send({ api_key: API_KEY, file_base64: pdf.toString('base64'), filename: 'x.pdf' });

  beforeAll(async () => {
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, INVOICE_MAX_BYTES: '200000' });
    await t.http
      .post('/ap-expectations')
      .send({
        api_key: API_KEY,
        expectations: [
          { shipment_ref: 'MSCU1234566', expected_amount: 11600, currency: 'MXN', departure_date: '2026-11-01', arrival_date: '2026-11-20' },
          { shipment_ref: 'MAEU7654320', expected_amount: 5000, currency: 'USD', departure_date: '2026-12-01' },
        ],
        payments: [{ supplier: 'TRANSPORTES DEL NORTE, S.A. de C.V.', invoice_number: 'inv-paid-1', paid_at: '2026-11-10' }],
      })
      .expect(200, { success: true, expectations: 2, payments: 1 });
  });
  afterAll(async () => t?.close());

  it('requires the API key (form field, JSON field or header)', async () => {
    await t.http.post('/ap-invoice-process').attach('file', invoicePdf(), 'x.pdf').expect(401);
    await t.http.post('/ap-invoice-process').send({ file_base64: invoicePdf().toString('base64') }).expect(401);
    await t.http.post('/ap-expectations').send({ expectations: [] }).expect(401);
  });

  it('Success: a readable invoice matching its expectation (multipart)', async () => {
    const res = await upload(invoicePdf()).expect(200);
    expect(res.body).toMatchObject({
      success: true,
      invoice: { supplier: 'Transportes del Norte SA de CV', invoice_number: 'INV-2026-0042', invoice_date: '2026-11-05', currency: 'MXN', subtotal: 10000, tax: 1600, total: 11600, shipment_ref: 'MSCU1234566' },
      warnings: [],
    });
    expect(res.body.checks.map((c: { check: string; result: string }) => `${c.check}:${c.result}`)).toEqual([
      'DUPLICATE_INVOICE:pass', 'ALREADY_PAID:pass', 'AMOUNT_TOLERANCE:pass', 'CURRENCY_MISMATCH:pass', 'TAX_IVA:pass', 'DATE_BEFORE_DEPARTURE:pass', 'DATE_TOO_OLD:pass',
    ]);
  });

  it('Blocked: the same invoice again (base64 JSON) is a DUPLICATE_INVOICE', async () => {
    const res = await asJson(invoicePdf({ supplier: 'TRANSPORTES DEL NORTE S.A. DE C.V.' })).expect(409);
    expect(res.body).toMatchObject({ success: false, blocked: true });
    expect(res.body.reasons[0]).toContain('DUPLICATE_INVOICE');
  });

  it('Blocked: an invoice already paid, and one 30 % above the expected amount', async () => {
    const paid = await upload(invoicePdf({ number: 'INV-PAID-1' })).expect(409);
    expect(paid.body.reasons.join()).toContain('ALREADY_PAID');
    const high = await upload(invoicePdf({ number: 'INV-HIGH-2', subtotal: '13,000.00', tax: '2,080.00', total: '15,080.00' })).expect(409);
    expect(high.body.reasons.join()).toContain('AMOUNT_TOLERANCE');
  });

  it('Success with warnings: 15 % over, another currency, wrong IVA, dated before departure', async () => {
    const res = await upload(invoicePdf({ number: 'INV-WARN-3', ref: 'MAEU7654320', currency: 'MXN', date: '2026-11-20', subtotal: '5,000.00', tax: '750.00', total: '5,750.00' })).expect(200);
    expect(res.body.success).toBe(true);
    const warned = res.body.checks.filter((c: { result: string }) => c.result === 'warn').map((c: { check: string }) => c.check);
    expect(warned).toEqual(['AMOUNT_TOLERANCE', 'CURRENCY_MISMATCH', 'TAX_IVA', 'DATE_BEFORE_DEPARTURE']);
    expect(res.body.checks.find((c: { check: string }) => c.check === 'DATE_TOO_OLD').result).toBe('skipped');
  });

  it('two uploads of one new invoice at once: one Success, one DUPLICATE', async () => {
    const pdf = invoicePdf({ number: 'INV-RACE-4' });
    const answers = await Promise.all([upload(pdf), asJson(pdf)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });

  it.each([
    ['a PDF without invoice fields', () => textPdf(['Quarterly newsletter', 'Nothing to pay here.']), 'Incomplete extraction', ['supplier', 'invoice_number', 'invoice_date', 'currency', 'total']],
    ['a file that is not a PDF', () => Buffer.from('PK\u0003\u0004 this is a zip, not an invoice'), 'Unreadable PDF', []],
    ['a damaged PDF', () => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(300, 0x41)]), 'Unreadable PDF', []],
  ])('Rejected: %s', async (_name, build, reason, missing) => {
    const res = await upload(build()).expect(422);
    expect(res.body).toMatchObject({ success: false, rejected: true, missing_fields: missing });
    expect(res.body.reason).toContain(reason);
  });

  it('refuses no file, bad base64, oversized files and malformed expectations', async () => {
    expect((await t.http.post('/ap-invoice-process').send({ api_key: API_KEY }).expect(422)).body.error.code).toBe('VALIDATION_ERROR');
    await t.http.post('/ap-invoice-process').send({ api_key: API_KEY, file_base64: '***' }).expect(422);
    const big = Buffer.concat([invoicePdf(), Buffer.alloc(210_000, 0x20)]);
    expect((await upload(big).expect(413)).body.error.code).toBe('FILE_TOO_LARGE');
    expect((await asJson(big).expect(413)).body.error.code).toBe('FILE_TOO_LARGE');
    // the route reads JSON bodies over the platform's 1 MB (a PDF as base64); other routes do not
    expect((await asJson(Buffer.alloc(1_500_000, 0x20)).expect(413)).body.error.code).toBe('FILE_TOO_LARGE');
    const report = await t.http.post('/api/errors/report').send({ api_key: API_KEY, message: 'x'.repeat(1_500_000) });
    expect([report.status, report.body.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    await t.http.post('/ap-expectations').send({ api_key: API_KEY, expectations: [{ shipment_ref: 'X', expected_amount: -5 }] }).expect(422);
    await t.http.post('/ap-expectations').send({ api_key: API_KEY, payments: [{ supplier: 'x', invoice_number: '1', paid_at: 'yesterday' }] }).expect(422);
  });

  // Found by `npm run fuzz`: both answered 500 (a number class-validator threw on; numeric(14, 2) overflowing).
  it('refuses amounts the ledger cannot hold and tiny ones written with an exponent, with a 422', async () => {
    const payment = { supplier: 'x', invoice_number: '1', paid_at: '2026-11-10' };
    for (const amount of [1e-22, 9_007_199_254_740, 1_000_000_000_000]) {
      const res = await t.http.post('/ap-expectations').send({ api_key: API_KEY, payments: [{ ...payment, amount }] });
      expect({ amount, status: res.status }).toEqual({ amount, status: 422 });
      expect(res.body.error.errors[0].field).toBe('payments.0.amount');
    }
    await t.http.post('/ap-expectations').send({ api_key: API_KEY, expectations: [{ shipment_ref: 'BIG', expected_amount: 1e13 }] }).expect(422);
    await t.http.post('/ap-expectations').send({ api_key: API_KEY, payments: [{ ...payment, amount: 999_999_999_999.99 }] }).expect(200);
  });
});
