import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { InvoiceContext } from './invoice-checks';

export interface Expectation {
  shipment_ref: string;
  supplier: string | null;
  expected_amount: number | null;
  currency: string | null;
  departure_date: string | null;
  arrival_date: string | null;
}

export interface Payment {
  supplier_key: string;
  invoice_number: string;
  amount: number | null;
  paid_at: string;
}

/** What the invoice checks compare against: shipment expectations and recorded payments (ingested by `POST /ap-expectations`). */
@Injectable()
export class ApRecordsRepository {
  constructor(private readonly db: Database) {}

  async upsertExpectations(rows: Expectation[]): Promise<number> {
    if (!rows.length) return 0;
    const out = await this.db.rows<{ shipment_ref: string }>(
      `INSERT INTO ${this.db.table('ap_expectations')} AS e (shipment_ref, supplier, expected_amount, currency, departure_date, arrival_date)
       SELECT x.shipment_ref, x.supplier, x.expected_amount, x.currency, x.departure_date, x.arrival_date
         FROM jsonb_to_recordset($1::jsonb) AS x(shipment_ref text, supplier text, expected_amount numeric, currency text, departure_date date, arrival_date date)
       ON CONFLICT (shipment_ref) DO UPDATE SET
         supplier = coalesce(EXCLUDED.supplier, e.supplier), expected_amount = coalesce(EXCLUDED.expected_amount, e.expected_amount),
         currency = coalesce(EXCLUDED.currency, e.currency), departure_date = coalesce(EXCLUDED.departure_date, e.departure_date),
         arrival_date = coalesce(EXCLUDED.arrival_date, e.arrival_date), updated_at = now()
       RETURNING e.shipment_ref`,
      [JSON.stringify(rows)],
    );
    return out.length;
  }

  async upsertPayments(rows: Payment[]): Promise<number> {
    if (!rows.length) return 0;
    const out = await this.db.rows<{ invoice_number: string }>(
      `INSERT INTO ${this.db.table('ap_payments')} AS p (supplier_key, invoice_number, amount, paid_at)
       SELECT x.supplier_key, x.invoice_number, x.amount, x.paid_at FROM jsonb_to_recordset($1::jsonb) AS x(supplier_key text, invoice_number text, amount numeric, paid_at date)
       ON CONFLICT (supplier_key, invoice_number) DO UPDATE SET amount = EXCLUDED.amount, paid_at = EXCLUDED.paid_at
       RETURNING p.invoice_number`,
      [JSON.stringify(rows)],
    );
    return out.length;
  }

  async expectationFor(shipmentRef: string): Promise<InvoiceContext['expectation']> {
    const row = await this.db.one<{ expected_amount: string | null; currency: string | null; departure_date: string | null; arrival_date: string | null }>(
      `SELECT expected_amount, currency, to_char(departure_date, 'YYYY-MM-DD') AS departure_date, to_char(arrival_date, 'YYYY-MM-DD') AS arrival_date
         FROM ${this.db.table('ap_expectations')} WHERE shipment_ref = $1`,
      [shipmentRef],
    );
    return row ? { expected_amount: row.expected_amount === null ? null : Number(row.expected_amount), currency: row.currency, departure_date: row.departure_date, arrival_date: row.arrival_date } : null;
  }

  async paymentOf(supplierKey: string, invoiceNumber: string): Promise<{ paid_at: string } | null> {
    return this.db.one<{ paid_at: string }>(
      `SELECT to_char(paid_at, 'YYYY-MM-DD') AS paid_at FROM ${this.db.table('ap_payments')} WHERE supplier_key = $1 AND invoice_number = $2`,
      [supplierKey, invoiceNumber],
    );
  }
}
