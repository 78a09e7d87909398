import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { RunsService } from '../runs/runs.service';
import { AdvanceRun } from './advance-run';
import { ApplyInput } from './apply-input';
import { guardRun } from './engine-errors';
import type { InboundRow } from './inbound';
import { LoadRun } from './load-run';
import { parsePostbackPayload } from './run-machine';

/**
 * A button tap (postback): in one transaction the person is counted and the tap bound to the run its
 * payload names, when that run is the same person's of the same account; then the run gets the tap.
 */
@Injectable()
export class ProcessPostback {
  constructor(
    private readonly transactions: Transactions,
    private readonly input: ApplyInput,
    private readonly runs: RunsService,
    private readonly loadRun: LoadRun,
    private readonly advance: AdvanceRun,
    private readonly clock: Clock,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as { mid: string; sender_id: string; payload?: string };
    let runId = ev.run_id;
    if (!ev.applied_at) {
      runId = await this.transactions.transaction(async () => {
        await this.input.touch(account.id, p.sender_id, null, 'tap');
        const ref = parsePostbackPayload(p.payload);
        const run = ref ? await this.runs.find(ref.runId) : null;
        const mine = run && run.account_id === account.id && run.contact_ig_id === p.sender_id ? run.id : null;
        await this.input.applied(ev, mine);
        return mine;
      });
    }
    const loaded = runId ? await this.loadRun.execute(runId, account.id) : null;
    if (!loaded) return;
    const { run, automation: a, contact } = loaded;
    await guardRun(run.id, () => this.advance.execute(account, a, run, ev, { type: 'tap', knownEmail: contact?.email ?? null, now: this.clock.now() }));
  }
}
