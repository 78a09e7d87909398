import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { AccountEntity } from '../accounts/entities/account.entity';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { Clock } from '../common/clock';
import { ContactsService } from '../contacts/contacts.service';
import { EventsService } from '../events/events.service';
import type { RunRow } from '../runs/run';
import { RunsService } from '../runs/runs.service';
import { AnnounceRun } from './announce-run';
import { StaleRunError } from './engine-errors';
import { InboundService } from './inbound.service';
import type { MachineResult } from './run-machine';

/**
 * Stores a run's transition in one transaction: the run at its version (optimistic lock: another
 * worker that moved it meanwhile makes this one a StaleRunError, and nothing is written), the
 * captured email on the contact, an Event per new step and note, the announcements (customer
 * webhook, bus event) and the follow-up reminder as a work item.
 */
@Injectable()
export class RecordTransition {
  constructor(
    private readonly transactions: Transactions,
    private readonly runs: RunsService,
    private readonly contacts: ContactsService,
    private readonly events: EventsService,
    private readonly inbound: InboundService,
    private readonly announce: AnnounceRun,
    private readonly clock: Clock,
  ) {}

  async execute(account: AccountEntity, a: AutomationEntity, run: RunRow, res: MachineResult): Promise<void> {
    const now = this.clock.now();
    const stamps = res.stamps.filter((s) => run[s] === null);
    const followUpAt = res.effects.includes('schedule_follow_up') ? new Date(now.getTime() + a.follow_up_minutes * 60_000) : undefined;
    await this.transactions.transaction(async () => {
      const ok = await this.runs.update(run, { state: res.state, stamps, email: res.email, follow_up_due_at: followUpAt, error: res.error }, now);
      if (!ok) throw new StaleRunError(`run ${run.id} changed meanwhile`);
      const base = { automation_id: a.id, run_id: run.id, username: run.username };
      if (res.email) await this.contacts.setEmail(account.id, run.contact_ig_id, res.email);
      for (const stamp of stamps) {
        const kind = stamp.replace(/_at$/, '');
        await this.events.record(account.id, { ...base, kind, text: kind === 'email_captured' ? (res.email ?? null) : null });
      }
      for (const note of res.notes.filter((n) => n !== 'ignored')) await this.events.record(account.id, { ...base, kind: note });
      if (res.effects.includes('email_captured') && res.email) await this.announce.execute(account, a, run, 'email_captured', res.email, now);
      if (res.effects.includes('link_sent')) await this.announce.execute(account, a, run, 'link_sent', res.email ?? run.email, now);
      if (followUpAt) {
        await this.inbound.insert([
          { account_id: account.id, dedup_key: `follow_up:${run.id}`, kind: 'follow_up', subject: `${account.id}:${run.contact_ig_id}`, payload: { run_id: run.id }, not_before: followUpAt },
        ]);
      }
    });
  }
}
