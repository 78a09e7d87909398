import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { EventsService } from '../events/events.service';
import { GraphApiError } from '../graph/graph-api.error';
import { AdvanceRun } from './advance-run';
import { RunError, guardRun } from './engine-errors';
import type { InboundRow } from './inbound';
import { LoadRun } from './load-run';

/**
 * The read-but-not-tapped fallback is due (ProcessSeen scheduled it): a run still waiting for the tap
 * gets what the tap would have given — the email question or the link (follow status unknown: let
 * through) — with the stamp `read_fallback_at` (Funnel `read_fallback`, Event `read_fallback`). A run
 * tapped meanwhile, or moved on, is left alone. The platform may refuse the message (a private
 * reply does not open the 24-hour window, and reading opens nothing either): then the run keeps
 * waiting for the tap and an Event `read_fallback_refused` records the platform's answer.
 */
@Injectable()
export class ProcessReadFallback {
  constructor(
    private readonly loadRun: LoadRun,
    private readonly advance: AdvanceRun,
    private readonly events: EventsService,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const loaded = await this.loadRun.execute(String(ev.payload.run_id), account.id);
    if (!loaded) return;
    const { run, automation: a, contact } = loaded;
    if (run.state !== 'awaiting_tap' || run.button_tapped_at) return;
    try {
      await guardRun(run.id, () => this.advance.execute(account, a, run, ev, { type: 'read_fallback', knownEmail: contact?.email ?? null }));
    } catch (err) {
      const cause = err instanceof RunError ? err.cause : err;
      if (!(cause instanceof GraphApiError) || cause.retryable || cause.kind !== 'platform') throw err;
      await this.events.record(account.id, {
        kind: 'read_fallback_refused',
        automation_id: a.id,
        run_id: run.id,
        username: run.username,
        text: `the platform refused the link after the read (${cause.detail}); the button still works`.slice(0, 1000),
        ref: ev.dedup_key,
      });
    }
  }
}
