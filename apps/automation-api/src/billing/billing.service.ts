import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import type { BillingStatusDto, UsageDto } from './billing.dto';
import { BillingRepository } from './billing.repository';

function usage(used: number, limit: number): UsageDto {
  return limit > 0 ? { used, limit, remaining: Math.max(0, limit - used) } : { used, limit: null, remaining: null };
}

/** The account's plan (limits from configuration, BILLING_*) and its usage in the current calendar month (UTC). */
@Injectable()
export class BillingService {
  constructor(
    private readonly billing: BillingRepository,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  /**
   * Refuses a new automation when the account holds BILLING_AUTOMATIONS already: 403 PLAN_LIMIT.
   * Called inside the creating transaction, after a per-account lock, so concurrent creations count
   * each other.
   */
  async assertAutomationAllowed(accountId: number): Promise<void> {
    const limit = this.config.BILLING_AUTOMATIONS;
    if (limit === 0) return;
    const held = await this.billing.automations(accountId);
    if (held >= limit) {
      throw new ApiError(403, 'PLAN_LIMIT', `Plan limit reached: the ${this.config.BILLING_PLAN} plan allows ${limit} automations and this account holds ${held}`, {
        suggestion: 'Delete an automation you no longer use (DELETE /api/v1/automations/{id}) or move to a plan with more automations; billing_status shows the usage.',
      });
    }
  }

  /**
   * Whether a new run may start now: null, or the limit that is reached (runs or messages of the
   * calendar month). A run already started finishes its flow; the limit stops new ones.
   */
  async runRefusal(accountId: number): Promise<string | null> {
    const { BILLING_RUNS_PER_MONTH: runs, BILLING_MESSAGES_PER_MONTH: messages } = this.config;
    if (runs === 0 && messages === 0) return null;
    const { from, to } = this.period();
    const used = await this.billing.usage(accountId, from, to);
    if (messages > 0 && used.messages >= messages) return `monthly messages ${used.messages}/${messages} (${this.config.BILLING_PLAN} plan)`;
    if (runs > 0 && used.runs >= runs) return `monthly runs ${used.runs}/${runs} (${this.config.BILLING_PLAN} plan)`;
    return null;
  }

  private period(): { from: Date; to: Date } {
    const now = this.clock.now();
    return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)) };
  }

  async status(accountId: number): Promise<BillingStatusDto> {
    const { from, to } = this.period();
    const used = await this.billing.usage(accountId, from, to);
    const runs = usage(used.runs, this.config.BILLING_RUNS_PER_MONTH);
    const messages = usage(used.messages, this.config.BILLING_MESSAGES_PER_MONTH);
    const automations = usage(used.automations, this.config.BILLING_AUTOMATIONS);
    return {
      plan: this.config.BILLING_PLAN,
      period_start: from.toISOString(),
      period_end: to.toISOString(),
      runs,
      messages,
      automations,
      over_limit: [runs, messages, automations].some((u) => u.remaining === 0),
    };
  }
}
