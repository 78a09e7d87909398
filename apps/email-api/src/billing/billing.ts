import { ApiError } from '@platform/errors';

/** The categories capped per calendar month (UTC). */
export const BILLING_CATEGORIES = ['workflows', 'campaigns', 'transactional', 'inbound'] as const;
export type BillingCategory = (typeof BILLING_CATEGORIES)[number];

/** The largest cap a project may set (fits the counters' integer column with room to spare). */
export const MAX_BILLING_LIMIT = 1_000_000_000;

/** From this share of a cap on, the consumption carries `warning: true` (the research: 80 %). */
export const WARNING_SHARE = 0.8;

/** A cap per category; null: unlimited. */
export type BillingLimits = Record<BillingCategory, number | null>;

export const UNLIMITED: BillingLimits = { workflows: null, campaigns: null, transactional: null, inbound: null };

/**
 * The plan of a project as Stripe reported it: `free` (never subscribed), `active` (a paid
 * subscription, the last invoice paid), `past_due` (a payment failed), `canceled` (the subscription
 * ended). `past_due` and `canceled` disable the project.
 */
export type BillingPlan = 'free' | 'active' | 'past_due' | 'canceled';

/** The first day of the month of `at`, in UTC (the counters' `month`). */
export function monthOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** When the counters of the month of `at` reset: the first instant of the next month, UTC. */
export function resetsAt(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** `YYYY-MM-DD` of a UTC date (the SQL `date` parameter). */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * The cap that applies: the project's own cap and the plan's allowance (`planAllowance`, null when
 * none applies), whichever is lower; null when neither caps the category.
 */
export function effectiveLimit(own: number | null, planAllowance: number | null): number | null {
  if (own === null) return planAllowance;
  if (planAllowance === null) return own;
  return Math.min(own, planAllowance);
}

/**
 * The plan allowance of a project: with Stripe configured, `freeLimit` per category until a paid
 * plan is active; without Stripe, none (a self-hosted server is capped only by the projects' own caps).
 */
export function planAllowance(stripeConfigured: boolean, plan: BillingPlan, freeLimit: number): number | null {
  return stripeConfigured && plan !== 'active' ? freeLimit : null;
}

export interface CategoryConsumption {
  used: number;
  limit: number | null;
  remaining: number | null;
  /** used / limit, 0 to 1 (4 decimals); null when unlimited. */
  share: number | null;
  warning: boolean;
  reached: boolean;
}

/** One category's figures: `warning` from 80 % of the cap, `reached` at 100 %. */
export function consumptionOf(used: number, limit: number | null): CategoryConsumption {
  if (limit === null) return { used, limit, remaining: null, share: null, warning: false, reached: false };
  const share = Math.min(1, used / limit);
  return {
    used,
    limit,
    remaining: Math.max(0, limit - used),
    share: Math.round(share * 10_000) / 10_000,
    warning: used >= WARNING_SHARE * limit,
    reached: used >= limit,
  };
}

/**
 * A send (or inbound mail, or campaign) that does not fit in what is left of a monthly cap: 429
 * `BILLING_LIMIT_REACHED` naming the category and when it resets (also in `Retry-After` and in
 * `error.errors[0]`: `field` is the category, `code` `limit_reached`). Thrown by `MailQueue` for
 * every source, so a workflow step that sends over the cap fails with this error (`instanceof
 * BillingLimitReachedError`, or `code === 'BILLING_LIMIT_REACHED'`).
 */
export class BillingLimitReachedError extends ApiError {
  constructor(
    readonly category: BillingCategory,
    readonly limit: number,
    readonly used: number,
    readonly requested: number,
    readonly resetsAt: Date,
    now = new Date(),
  ) {
    const left = Math.max(0, limit - used);
    super(
      429,
      'BILLING_LIMIT_REACHED',
      `The monthly ${category} limit of ${limit} is reached: ${used} used, ${left} left, ${requested} needed; it resets at ${resetsAt.toISOString()}`,
      {
        suggestion: `Raise or remove the ${category} limit (PUT /users/@me/projects/:id/billing-limits), upgrade the plan (POST /users/@me/projects/:id/checkout), or wait until ${resetsAt.toISOString()}.`,
        errors: [{ field: category, message: `limit ${limit} reached (${used} used, ${requested} needed); resets at ${resetsAt.toISOString()}`, code: 'limit_reached' }],
        headers: { 'Retry-After': String(Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000))) },
      },
    );
  }
}

/** Stripe is not configured (STRIPE_SECRET_KEY unset): the billing provider routes answer 503. */
export const billingDisabled = () =>
  new ApiError(503, 'BILLING_DISABLED', 'Billing is not enabled on this server (STRIPE_SECRET_KEY is not set)', {
    suggestion: 'The operator enables billing with STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID; GET /config says whether it is on. Billing limits work without it.',
  });

/** Why a project was disabled by billing; a paid invoice re-enables only a project disabled for one of these. */
export const BILLING_DISABLED_PREFIX = 'billing: ';
