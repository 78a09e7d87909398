import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AdvanceRun } from './advance-run';
import { guardRun } from './engine-errors';
import type { InboundRow } from './inbound';
import { LoadRun } from './load-run';

const DAY_MS = 86_400_000;

/**
 * A follow-up reminder (a work item scheduled with the run's transition) is due: the run gets it,
 * with whether the person's 24-hour messaging window is still open.
 */
@Injectable()
export class ProcessFollowUp {
  constructor(
    private readonly loadRun: LoadRun,
    private readonly advance: AdvanceRun,
    private readonly clock: Clock,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const loaded = await this.loadRun.execute(String(ev.payload.run_id), account.id);
    if (!loaded) return;
    const { run, automation: a, contact } = loaded;
    const last = contact?.last_inbound_at ? new Date(contact.last_inbound_at).getTime() : null;
    const windowOpen = last !== null && this.clock.now().getTime() - last < DAY_MS;
    await guardRun(run.id, () => this.advance.execute(account, a, run, ev, { type: 'follow_up_due', windowOpen }));
  }
}
