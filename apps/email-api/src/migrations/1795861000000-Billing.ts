import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing (src/billing/):
 * - `billing_accounts`: one row per project that has limits or a Stripe customer — the caps per
 *   category (null: unlimited), the Stripe customer and subscription, and the plan with the time of
 *   the Stripe event that set it (older events never overwrite a newer state);
 * - `billing_usage`: the counter of one category of one project in one calendar month (UTC), taken
 *   by a conditional UPDATE in the transaction that writes the mail (exact under concurrency);
 * - `billing_stripe_events`: the ids of the Stripe events handled (each once);
 * - a trigger on `emails` that gives the unit back when a counted mail ends FAILED, CANCELLED or
 *   SUPPRESSED (whoever moves it there: the send worker, a campaign cancel, the suppression check),
 *   in the month the mail was counted in.
 */
export class Billing1795861000000 implements MigrationInterface {
  name = 'Billing1795861000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.billing_accounts (
        project_id uuid PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        limit_workflows integer CHECK (limit_workflows > 0),
        limit_campaigns integer CHECK (limit_campaigns > 0),
        limit_transactional integer CHECK (limit_transactional > 0),
        limit_inbound integer CHECK (limit_inbound > 0),
        stripe_customer_id text UNIQUE,
        stripe_subscription_id text,
        plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'active', 'past_due', 'canceled')),
        plan_changed_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ${s}.billing_usage (
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        category text NOT NULL CHECK (category IN ('workflows', 'campaigns', 'transactional', 'inbound')),
        month date NOT NULL,
        used integer NOT NULL CHECK (used >= 0),
        PRIMARY KEY (project_id, category, month)
      )`);
    await q.query(`
      CREATE TABLE ${s}.billing_stripe_events (
        id text PRIMARY KEY,
        type text NOT NULL,
        project_id uuid,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE FUNCTION ${s}.billing_release_email() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE ${s}.billing_usage SET used = greatest(used - 1, 0)
         WHERE project_id = NEW.project_id
           AND category = CASE NEW.source WHEN 'API' THEN 'transactional' WHEN 'CAMPAIGN' THEN 'campaigns' WHEN 'WORKFLOW' THEN 'workflows' END
           AND month = date_trunc('month', NEW.created_at AT TIME ZONE 'UTC')::date;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER emails_billing_release AFTER UPDATE OF status ON ${s}.emails
      FOR EACH ROW
      WHEN (NEW.project_id IS NOT NULL AND NEW.source <> 'SYSTEM'
            AND OLD.status NOT IN ('FAILED', 'CANCELLED', 'SUPPRESSED')
            AND NEW.status IN ('FAILED', 'CANCELLED', 'SUPPRESSED'))
      EXECUTE FUNCTION ${s}.billing_release_email()`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TRIGGER emails_billing_release ON ${s}.emails`);
    await q.query(`DROP FUNCTION ${s}.billing_release_email()`);
    await q.query(`DROP TABLE ${s}.billing_stripe_events`);
    await q.query(`DROP TABLE ${s}.billing_usage`);
    await q.query(`DROP TABLE ${s}.billing_accounts`);
  }
}
