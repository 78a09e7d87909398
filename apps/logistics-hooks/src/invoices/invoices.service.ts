import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { pdfText, UnreadablePdfError } from '@platform/documents';
import { ApiError } from '@platform/errors';
import { LogisticsHooksConfig } from '../config';
import { ApRecordsRepository, type Expectation, type Payment } from './ap-records.repository';
import { checkInvoice, type CheckResult, type CheckThresholds } from './invoice-checks';
import { missingFields, parseInvoiceText, type InvoiceFields } from './invoice-fields';
import { InvoicesRepository } from './invoices.repository';

/** Supplier names compared case- and space-insensitively (`Transportes del Norte, S.A.` = `transportes del norte s.a.`). */
export const supplierKey = (name: string): string => name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

export type InvoiceOutcome =
  | { kind: 'success'; id: string; fields: InvoiceFields; checks: CheckResult[]; warnings: string[] }
  | { kind: 'blocked'; id: string; fields: InvoiceFields; checks: CheckResult[]; reasons: string[]; warnings: string[] }
  | { kind: 'rejected'; id: string; reason: string; missing_fields: string[]; fields: InvoiceFields | null };

/**
 * Accounts-payable invoices: text from the PDF, fields parsed, the spec's exception checks against the
 * ingested expectations and payments, every processed invoice stored (so a duplicate is found). The
 * duplicate check and the insert run under an advisory lock per supplier and number: two uploads of
 * one invoice at once give one success and one DUPLICATE_INVOICE.
 */
@Injectable()
export class InvoicesService {
  private readonly thresholds: CheckThresholds;

  constructor(
    private readonly transactions: Transactions,
    private readonly invoices: InvoicesRepository,
    private readonly records: ApRecordsRepository,
    @Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig,
  ) {
    this.thresholds = { warnVariancePct: 10, blockVariancePct: 25, taxRatePct: config.INVOICE_TAX_RATE_PCT, maxDaysAfterArrival: 180 };
  }

  async process(file: Buffer): Promise<InvoiceOutcome> {
    if (file.length === 0) throw new ApiError(422, 'VALIDATION_ERROR', 'The invoice file is empty', { errors: [{ field: 'file', message: 'empty', code: 'isNotEmpty' }], suggestion: 'Send the invoice PDF as the multipart field file, or base64 in file_base64.' });
    if (file.length > this.config.INVOICE_MAX_BYTES) {
      throw new ApiError(413, 'FILE_TOO_LARGE', `The invoice is ${file.length} bytes; at most ${this.config.INVOICE_MAX_BYTES}`, { suggestion: 'Send the invoice alone, as a PDF under the limit.' });
    }
    const sha = createHash('sha256').update(file).digest('hex');
    let text: string;
    try {
      text = await pdfText(file, { maxPages: 10, timeoutMs: this.config.INVOICE_PARSE_TIMEOUT_MS });
    } catch (err) {
      if (!(err instanceof UnreadablePdfError)) throw err;
      const stored = await this.invoices.insert({ outcome: 'rejected', supplier: null, supplierKey: null, invoiceNumber: null, fields: null, checks: [], reason: err.message, fileSha256: sha });
      return { kind: 'rejected', id: stored.id, reason: `Unreadable PDF: ${err.message}`, missing_fields: [], fields: null };
    }
    const fields = parseInvoiceText(text);
    const missing = missingFields(fields);
    if (missing.length) {
      const reason = `Incomplete extraction: ${missing.join(', ')} not found`;
      const stored = await this.invoices.insert({ outcome: 'rejected', supplier: fields.supplier, supplierKey: fields.supplier ? supplierKey(fields.supplier) : null, invoiceNumber: fields.invoice_number, fields, checks: [], reason, fileSha256: sha });
      return { kind: 'rejected', id: stored.id, reason, missing_fields: missing, fields };
    }
    const key = supplierKey(fields.supplier!);
    const number = fields.invoice_number!;
    return this.transactions.transaction(async () => {
      await this.transactions.lock(`ap-invoice:${key}:${number}`);
      // One after the other: a transaction is one connection, which runs one statement at a time.
      const earlier = await this.invoices.findProcessed(key, number);
      const paid = await this.records.paymentOf(key, number);
      const expectation = fields.shipment_ref ? await this.records.expectationFor(fields.shipment_ref) : null;
      const { outcome, checks } = checkInvoice(fields, { duplicateOf: earlier ? `processed ${earlier.created_at} as ${earlier.id}` : null, paid, expectation }, this.thresholds);
      const warnings = checks.filter((c) => c.result === 'warn').map((c) => `${c.check}: ${c.message}`);
      const reasons = checks.filter((c) => c.result === 'block').map((c) => `${c.check}: ${c.message}`);
      const stored = await this.invoices.insert({ outcome, supplier: fields.supplier, supplierKey: key, invoiceNumber: number, fields, checks, reason: reasons.join('; ') || null, fileSha256: sha });
      return outcome === 'success'
        ? { kind: 'success' as const, id: stored.id, fields, checks, warnings }
        : { kind: 'blocked' as const, id: stored.id, fields, checks, reasons, warnings };
    });
  }

  /** Stores expectations (merged by shipment reference) and payments (by supplier and invoice number). */
  async ingest(expectations: Array<Partial<Expectation> & { shipment_ref: string }>, payments: Array<{ supplier: string; invoice_number: string; amount?: number; paid_at: string }>): Promise<{ expectations: number; payments: number }> {
    return this.transactions.transaction(async () => ({
      expectations: await this.records.upsertExpectations(
        expectations.map((e) => ({
          shipment_ref: e.shipment_ref.replace(/[\s-]/g, '').toUpperCase(),
          supplier: e.supplier ?? null,
          expected_amount: e.expected_amount ?? null,
          currency: e.currency?.toUpperCase() ?? null,
          departure_date: e.departure_date ?? null,
          arrival_date: e.arrival_date ?? null,
        })),
      ),
      payments: await this.records.upsertPayments(
        payments.map((p): Payment => ({ supplier_key: supplierKey(p.supplier), invoice_number: p.invoice_number.trim().toUpperCase(), amount: p.amount ?? null, paid_at: p.paid_at })),
      ),
    }));
  }
}
