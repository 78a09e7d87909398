import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { EmailApiConfig } from '../config';
import {
  BILLING_CATEGORIES,
  BillingLimitReachedError,
  consumptionOf,
  effectiveLimit,
  monthOf,
  planAllowance,
  resetsAt,
  UNLIMITED,
  type BillingCategory,
  type BillingLimits,
  type BillingPlan,
  type CategoryConsumption,
} from './billing';
import { BillingRepository } from './billing.repository';

export interface Consumption {
  /** `YYYY-MM` (UTC) */
  month: string;
  periodStart: Date;
  resetsAt: Date;
  plan: BillingPlan;
  /** Some category is at 80 % of its cap or more. */
  warning: boolean;
  categories: Record<BillingCategory, CategoryConsumption>;
}

export interface LimitsView {
  limits: BillingLimits;
  /** The plan's allowance per category (null: none applies). */
  planAllowance: number | null;
  plan: BillingPlan;
}

/**
 * The monthly caps and their counters: what the mail queue, the campaign launch and the inbound
 * receiver call (the billing module is global), and what the billing routes read and set. Every
 * counting call joins the caller's open transaction, so the units are taken exactly when the mail
 * is written (and given back when it ends FAILED, CANCELLED or SUPPRESSED: a trigger, see the
 * migration).
 */
@Injectable()
export class BillingUsage {
  /** The units `consume` put off inside `batched(…)`, per project and category. */
  private readonly putOff = new AsyncLocalStorage<Map<string, { projectId: string; category: BillingCategory; n: number }>>();

  constructor(
    private readonly repo: BillingRepository,
    private readonly config: EmailApiConfig,
  ) {}

  private get stripeConfigured(): boolean {
    return Boolean(this.config.STRIPE_SECRET_KEY);
  }

  /**
   * Takes `n` units of the category now, or throws 429 BILLING_LIMIT_REACHED (nothing taken). Inside
   * `batched(…)` the units are added up and taken when it ends.
   */
  async consume(projectId: string, category: BillingCategory, n = 1): Promise<void> {
    const putOff = this.putOff.getStore();
    if (putOff && n > 0) {
      const key = `${projectId}:${category}`;
      const sum = putOff.get(key);
      if (sum) sum.n += n;
      else putOff.set(key, { projectId, category, n });
      return;
    }
    if (!(await this.tryConsume(projectId, category, n))) throw await this.limitReached(projectId, category, n);
  }

  /**
   * Runs `fn` (in the caller's open transaction) with every `consume` of it put off, then takes the
   * units added up, one statement per project and category: the counter row of a batch of mails is
   * locked once, at the end of the transaction, not once per mail. All or nothing: when the sum does
   * not fit in the cap this throws 429 BILLING_LIMIT_REACHED after `fn`, and the caller rolls the
   * transaction back (and may write the mails one by one, each `consume` exact).
   */
  async batched<T>(fn: () => Promise<T>): Promise<T> {
    const putOff = new Map<string, { projectId: string; category: BillingCategory; n: number }>();
    const out = await this.putOff.run(putOff, fn);
    for (const { projectId, category, n } of putOff.values()) await this.consume(projectId, category, n);
    return out;
  }

  /** Takes `n` units of the category if they fit; false (nothing taken) when they do not. */
  async tryConsume(projectId: string, category: BillingCategory, n = 1): Promise<boolean> {
    if (n <= 0) return true;
    return this.repo.take(projectId, category, monthOf(new Date()), n, this.stripeConfigured ? this.config.BILLING_FREE_LIMIT : null);
  }

  /** Throws 429 BILLING_LIMIT_REACHED unless `n` more units of the category fit in this month's cap (takes nothing). */
  async assertRoom(projectId: string, category: BillingCategory, n: number): Promise<void> {
    const { used, limit } = await this.figures(projectId, category);
    if (limit !== null && used + n > limit) throw new BillingLimitReachedError(category, limit, used, n, resetsAt(new Date()));
  }

  async limits(projectId: string): Promise<LimitsView> {
    const account = await this.repo.account(projectId);
    const plan = account?.plan ?? 'free';
    return { limits: account?.limits ?? { ...UNLIMITED }, plan, planAllowance: planAllowance(this.stripeConfigured, plan, this.config.BILLING_FREE_LIMIT) };
  }

  async setLimits(projectId: string, limits: BillingLimits): Promise<LimitsView> {
    const account = await this.repo.setLimits(projectId, limits);
    return { limits: account.limits, plan: account.plan, planAllowance: planAllowance(this.stripeConfigured, account.plan, this.config.BILLING_FREE_LIMIT) };
  }

  /** This month's counters per category with the cap that applies, the share used and the 80 % warning. */
  async consumption(projectId: string, now = new Date()): Promise<Consumption> {
    const month = monthOf(now);
    const view = await this.limits(projectId);
    const used = await this.repo.usage(projectId, month);
    const categories = Object.fromEntries(
      BILLING_CATEGORIES.map((c) => [c, consumptionOf(used[c], effectiveLimit(view.limits[c], view.planAllowance))]),
    ) as Record<BillingCategory, CategoryConsumption>;
    return {
      month: month.toISOString().slice(0, 7),
      periodStart: month,
      resetsAt: resetsAt(now),
      plan: view.plan,
      warning: BILLING_CATEGORIES.some((c) => categories[c].warning),
      categories,
    };
  }

  private async figures(projectId: string, category: BillingCategory): Promise<{ used: number; limit: number | null }> {
    const view = await this.limits(projectId);
    const used = await this.repo.usage(projectId, monthOf(new Date()));
    return { used: used[category], limit: effectiveLimit(view.limits[category], view.planAllowance) };
  }

  private async limitReached(projectId: string, category: BillingCategory, n: number): Promise<BillingLimitReachedError> {
    const { used, limit } = await this.figures(projectId, category);
    return new BillingLimitReachedError(category, limit ?? used, used, n, resetsAt(new Date()));
  }
}
