import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts payable: what each shipment is expected to cost (and when it sailed and arrived), recorded payments, processed invoices. */
export class CreateAccountsPayable1795511600000 implements MigrationInterface {
  name = 'CreateAccountsPayable1795511600000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.ap_expectations (
        shipment_ref text PRIMARY KEY,
        supplier text,
        expected_amount numeric(14, 2),
        currency char(3),
        departure_date date,
        arrival_date date,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ${s}.ap_payments (
        supplier_key text NOT NULL,
        invoice_number text NOT NULL,
        amount numeric(14, 2),
        paid_at date NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (supplier_key, invoice_number)
      )`);
    await q.query(`
      CREATE TABLE ${s}.ap_invoices (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        outcome text NOT NULL CHECK (outcome IN ('success', 'blocked', 'rejected')),
        supplier text,
        supplier_key text,
        invoice_number text,
        fields jsonb NOT NULL,
        checks jsonb NOT NULL,
        reason text,
        file_sha256 char(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ap_invoices_success_idx ON ${s}.ap_invoices (supplier_key, invoice_number) WHERE outcome = 'success'`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.ap_invoices`);
    await q.query(`DROP TABLE ${s}.ap_payments`);
    await q.query(`DROP TABLE ${s}.ap_expectations`);
  }
}
