import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { CheckResult } from './invoice-checks';
import type { InvoiceFields } from './invoice-fields';

export interface StoredInvoice {
  id: string;
  outcome: 'success' | 'blocked' | 'rejected';
  created_at: string;
}

@Injectable()
export class InvoicesRepository {
  constructor(private readonly db: Database) {}

  /** The earlier successful processing of this supplier and number, if any. */
  async findProcessed(supplierKey: string, invoiceNumber: string): Promise<StoredInvoice | null> {
    const row = await this.db.one<{ id: string; outcome: StoredInvoice['outcome']; created_at: Date }>(
      `SELECT id, outcome, created_at FROM ${this.db.table('ap_invoices')} WHERE supplier_key = $1 AND invoice_number = $2 AND outcome = 'success'`,
      [supplierKey, invoiceNumber],
    );
    return row ? { id: row.id, outcome: row.outcome, created_at: new Date(row.created_at).toISOString() } : null;
  }

  async insert(rec: { outcome: StoredInvoice['outcome']; supplier: string | null; supplierKey: string | null; invoiceNumber: string | null; fields: InvoiceFields | null; checks: CheckResult[]; reason: string | null; fileSha256: string }): Promise<StoredInvoice> {
    const row = await this.db.one<{ id: string; created_at: Date }>(
      `INSERT INTO ${this.db.table('ap_invoices')} (outcome, supplier, supplier_key, invoice_number, fields, checks, reason, file_sha256)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, created_at`,
      [rec.outcome, rec.supplier, rec.supplierKey, rec.invoiceNumber, JSON.stringify(rec.fields ?? {}), JSON.stringify(rec.checks), rec.reason, rec.fileSha256],
    );
    return { id: row!.id, outcome: rec.outcome, created_at: new Date(row!.created_at).toISOString() };
  }
}
