import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { Clock } from '../common/clock';
import { EventsService } from '../events/events.service';
import { GraphApiError } from '../graph/graph-api.error';
import { RunsService } from '../runs/runs.service';
import { RunError } from './engine-errors';
import type { InboundRow } from './inbound';

/** Prefix of the problems the engine records on the account (GET /status shows them, status/status.service.ts). */
export const ENGINE_PROBLEM_PREFIX = 'Engine: ';

/**
 * A work item failed for good: its run goes to state error, an `error` Event records why, and a
 * platform error becomes the account's problem (GET /status shows it for a day).
 */
@Injectable()
export class FailRun {
  constructor(
    private readonly runs: RunsService,
    private readonly events: EventsService,
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
  ) {}

  async execute(ev: InboundRow, err: unknown): Promise<void> {
    const detail = err instanceof RunError ? err.message : err instanceof Error ? err.message : String(err);
    const runId = err instanceof RunError ? err.runId : ev.run_id;
    if (runId) await this.runs.fail(runId, detail);
    const run = runId ? await this.runs.find(runId) : null;
    await this.events.record(ev.account_id, { kind: 'error', automation_id: run?.automation_id ?? null, run_id: runId, username: run?.username ?? null, text: detail.slice(0, 1000), ref: ev.dedup_key });
    const cause = err instanceof RunError ? err.cause : err;
    if (cause instanceof GraphApiError) {
      await this.accounts.update(ev.account_id, { last_problem: `${ENGINE_PROBLEM_PREFIX}run ${runId ?? '-'}: ${cause.message}`, last_problem_at: this.clock.now() });
    }
  }
}
