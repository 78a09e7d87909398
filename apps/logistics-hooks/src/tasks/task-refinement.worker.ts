import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { LogisticsHooksConfig } from '../config';
import { LlmClient } from '../llm/llm.client';
import { TasksService } from './tasks.service';

/** How long one replica holds a claimed refinement (longer than LLM_TIMEOUT_MS allows a call). */
const LEASE_MARGIN_SECONDS = 30;
/** Attempts before the rules' classification is final (`refinement: failed`). */
export const MAX_REFINE_ATTEMPTS = 3;
/** Seconds before attempt n+1: 5, 25. */
export const refineRetryDelay = (attempts: number): number => 5 ** attempts;

/**
 * The model refines in the background what the rules classified when the email arrived: each task
 * stored with `refinement: pending` is claimed by one replica (`claimDue`, FOR UPDATE SKIP LOCKED with
 * a lease), sent to the model, and updated with the fields the rules accept, with
 * `logistics.task_classified` enqueued in the same transaction. A failed call is retried up to
 * {@link MAX_REFINE_ATTEMPTS} times, then the rules' answer stays (`failed`). Off without LLM_URL.
 */
@Injectable()
export class TaskRefinementWorker extends PollingWorker {
  protected readonly logger = new Logger(TaskRefinementWorker.name);

  constructor(
    private readonly tasks: TasksService,
    private readonly llm: LlmClient,
    @Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig,
  ) {
    super(config.TASK_REFINE_POLL_MS);
    tasks.onPendingRefinement(() => this.wake());
  }

  protected override enabled(): boolean {
    return this.llm.enabled;
  }

  protected async tick(): Promise<number> {
    const leaseSeconds = Math.ceil(this.config.LLM_TIMEOUT_MS / 1000) + LEASE_MARGIN_SECONDS;
    const claimed = await this.tasks.claimRefinements(4, leaseSeconds);
    await Promise.all(claimed.map((task) => this.tasks.refine(task, MAX_REFINE_ATTEMPTS, refineRetryDelay)));
    return claimed.length;
  }
}
