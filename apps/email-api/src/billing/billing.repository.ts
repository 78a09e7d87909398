import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { BILLING_CATEGORIES, isoDay, type BillingCategory, type BillingLimits, type BillingPlan } from './billing';

interface AccountRow {
  project_id: string;
  limit_workflows: number | null;
  limit_campaigns: number | null;
  limit_transactional: number | null;
  limit_inbound: number | null;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  plan: BillingPlan;
  plan_changed_at: Date | null;
  updated_at: Date;
}

export interface BillingAccount {
  projectId: string;
  limits: BillingLimits;
  stripeCustomerId: string | null;
  stripeSubscriptionId: string | null;
  plan: BillingPlan;
  planChangedAt: Date | null;
}

/** The limit column of each category (a fixed map: never built from input). */
const LIMIT_COLUMN: Record<BillingCategory, string> = {
  workflows: 'limit_workflows',
  campaigns: 'limit_campaigns',
  transactional: 'limit_transactional',
  inbound: 'limit_inbound',
};

function toAccount(r: AccountRow): BillingAccount {
  return {
    projectId: r.project_id,
    limits: { workflows: r.limit_workflows, campaigns: r.limit_campaigns, transactional: r.limit_transactional, inbound: r.limit_inbound },
    stripeCustomerId: r.stripe_customer_id,
    stripeSubscriptionId: r.stripe_subscription_id,
    plan: r.plan,
    planChangedAt: r.plan_changed_at,
  };
}

/**
 * The billing tables: `billing_accounts` (caps, Stripe customer, plan), `billing_usage` (the monthly
 * counters) and `billing_stripe_events` (Stripe events handled), and the billing side of a project's
 * `disabled` flag.
 */
@Injectable()
export class BillingRepository {
  constructor(private readonly db: Database) {}

  private get accounts(): string {
    return this.db.table('billing_accounts');
  }

  private get usageTable(): string {
    return this.db.table('billing_usage');
  }

  async account(projectId: string): Promise<BillingAccount | null> {
    const row = await this.db.one<AccountRow>(`SELECT * FROM ${this.accounts} WHERE project_id = $1`, [projectId]);
    return row ? toAccount(row) : null;
  }

  async setLimits(projectId: string, limits: BillingLimits): Promise<BillingAccount> {
    const row = await this.db.one<AccountRow>(
      `INSERT INTO ${this.accounts} AS a (project_id, limit_workflows, limit_campaigns, limit_transactional, limit_inbound)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id) DO UPDATE SET limit_workflows = EXCLUDED.limit_workflows, limit_campaigns = EXCLUDED.limit_campaigns,
         limit_transactional = EXCLUDED.limit_transactional, limit_inbound = EXCLUDED.limit_inbound, updated_at = now()
       RETURNING *`,
      [projectId, limits.workflows, limits.campaigns, limits.transactional, limits.inbound],
    );
    return toAccount(row!);
  }

  /** The counters of the month (first day, UTC), every category (0 where none was counted). */
  async usage(projectId: string, month: Date): Promise<Record<BillingCategory, number>> {
    const rows = await this.db.rows<{ category: BillingCategory; used: number }>(
      `SELECT category, used FROM ${this.usageTable} WHERE project_id = $1 AND month = $2::date`,
      [projectId, isoDay(month)],
    );
    const out = Object.fromEntries(BILLING_CATEGORIES.map((c) => [c, 0])) as Record<BillingCategory, number>;
    for (const r of rows) out[r.category] = r.used;
    return out;
  }

  /**
   * Takes `n` units of the category's counter of the month if they fit under the cap, in one
   * statement that joins the open transaction (the mail insert's): the cap is the project's own one
   * and `planAllowance` (null: none; it does not apply once the plan is `active`), whichever is lower.
   * The counter row is created or updated with a conditional upsert, so two transactions racing for
   * the last unit serialise on the row and the second sees the first's count: one wins. Answers
   * whether the units were taken.
   */
  async take(projectId: string, category: BillingCategory, month: Date, n: number, planAllowance: number | null): Promise<boolean> {
    const rows = await this.db.rows<{ used: number }>(
      `WITH a AS (SELECT ${LIMIT_COLUMN[category]} AS own, plan FROM ${this.accounts} WHERE project_id = $1),
       p AS (SELECT (SELECT own FROM a) AS own,
                    CASE WHEN $5::int IS NOT NULL AND coalesce((SELECT plan FROM a), 'free') <> 'active' THEN $5::int END AS allowance),
       cap AS (SELECT CASE WHEN own IS NULL THEN allowance WHEN allowance IS NULL THEN own ELSE least(own, allowance) END AS cap FROM p)
       INSERT INTO ${this.usageTable} AS u (project_id, category, month, used)
       SELECT $1, $2, $3::date, $4 FROM cap WHERE cap.cap IS NULL OR $4 <= cap.cap
       ON CONFLICT (project_id, category, month) DO UPDATE SET used = u.used + EXCLUDED.used
         WHERE (SELECT cap FROM cap) IS NULL OR u.used + EXCLUDED.used <= (SELECT cap FROM cap)
       RETURNING u.used`,
      [projectId, category, isoDay(month), n, planAllowance],
    );
    return rows.length > 0;
  }

  // ---- Stripe ----

  async projectOfCustomer(customerId: string): Promise<string | null> {
    const row = await this.db.one<{ project_id: string }>(`SELECT project_id FROM ${this.accounts} WHERE stripe_customer_id = $1`, [customerId]);
    return row?.project_id ?? null;
  }

  /** Keeps the project's Stripe customer; one already kept stays (answers the one kept). */
  async keepCustomer(projectId: string, customerId: string): Promise<string> {
    const row = await this.db.one<{ stripe_customer_id: string }>(
      `INSERT INTO ${this.accounts} AS a (project_id, stripe_customer_id) VALUES ($1, $2)
       ON CONFLICT (project_id) DO UPDATE SET stripe_customer_id = coalesce(a.stripe_customer_id, EXCLUDED.stripe_customer_id), updated_at = now()
       RETURNING stripe_customer_id`,
      [projectId, customerId],
    );
    return row!.stripe_customer_id;
  }

  /** Marks a Stripe event handled; false when it already was (a redelivery). */
  async markEvent(id: string, type: string, projectId: string | null): Promise<boolean> {
    const rows = await this.db.rows(`INSERT INTO ${this.db.table('billing_stripe_events')} (id, type, project_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id`, [id, type, projectId]);
    return rows.length > 0;
  }

  /**
   * Sets the plan as of a Stripe event created at `at`, unless a newer event set it already (Stripe
   * does not deliver in order); answers whether it was applied.
   */
  async setPlan(projectId: string, plan: BillingPlan, at: Date, subscriptionId: string | null): Promise<boolean> {
    const rows = await this.db.rows(
      `INSERT INTO ${this.accounts} AS a (project_id, plan, plan_changed_at, stripe_subscription_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id) DO UPDATE SET plan = EXCLUDED.plan, plan_changed_at = EXCLUDED.plan_changed_at,
         stripe_subscription_id = coalesce(EXCLUDED.stripe_subscription_id, a.stripe_subscription_id), updated_at = now()
         WHERE a.plan_changed_at IS NULL OR a.plan_changed_at <= EXCLUDED.plan_changed_at
       RETURNING project_id`,
      [projectId, plan, at, subscriptionId],
    );
    return rows.length > 0;
  }
}
