import { Inject, Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { EventsService } from '../events/events.service';
import { RunsService } from '../runs/runs.service';
import type { InboundRow } from './inbound';
import { InboundService } from './inbound.service';

/**
 * The person read the conversation (`messaging_seen`): their run waiting for the tap whose opening
 * DM went out before the read gets `read_at` and an Event `dm_read`, and — once per run, in the same
 * transaction — a `read_fallback` work item due AUTOMATION_READ_FALLBACK_MINUTES later
 * (ProcessReadFallback sends what the tap would have given, if the tap still has not come).
 */
@Injectable()
export class ProcessSeen {
  constructor(
    private readonly transactions: Transactions,
    private readonly runs: RunsService,
    private readonly events: EventsService,
    private readonly inbound: InboundService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const minutes = this.config.AUTOMATION_READ_FALLBACK_MINUTES;
    if (minutes <= 0) return;
    const p = ev.payload as { sender_id: string; mid: string | null; watermark: number | null };
    const now = this.clock.now();
    // The watermark (or the read's time) says up to when the person read; without one, everything sent so far.
    const readUpTo = p.watermark && Number.isFinite(p.watermark) ? new Date(Math.min(p.watermark, now.getTime())) : now;
    const run = await this.runs.awaitingTapReadBy(account.id, p.sender_id, readUpTo);
    if (!run) return;
    await this.transactions.transaction(async () => {
      if (!(await this.runs.markRead(run.id, now))) return;
      await this.events.record(account.id, {
        kind: 'dm_read',
        automation_id: run.automation_id,
        run_id: run.id,
        username: run.username,
        text: `the opening DM was read; the link follows in ${minutes} min unless the button is tapped`,
        ref: p.mid ?? (p.watermark === null ? null : String(p.watermark)),
      });
      await this.inbound.insert([
        {
          account_id: account.id,
          dedup_key: `read_fallback:${run.id}`,
          kind: 'read_fallback',
          subject: `${account.id}:${run.contact_ig_id}`,
          payload: { run_id: run.id },
          not_before: new Date(now.getTime() + minutes * 60_000),
        },
      ]);
    });
  }
}
