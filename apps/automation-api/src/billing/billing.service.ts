import { Inject, Injectable } from '@nestjs/common';
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

  async status(accountId: number): Promise<BillingStatusDto> {
    const now = this.clock.now();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
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
