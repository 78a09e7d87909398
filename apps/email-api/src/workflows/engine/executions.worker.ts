import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../../config';
import { WorkflowEngine } from './workflow-engine';

/**
 * The engine's loop on every replica: claims due executions (started, a DELAY's wake-up, a
 * WAIT_FOR_EVENT's timeout, a retry's time, an event's resumption) with `claimDue` and advances
 * them. Due times live in the database (`workflow_executions.due_at`): no timer in memory, so a
 * restart or a crash loses nothing. Woken at once when this process starts or resumes executions;
 * otherwise it looks every WORKER_POLL_MS.
 */
@Injectable()
export class ExecutionsWorker extends PollingWorker {
  protected readonly logger = new Logger('ExecutionsWorker');

  constructor(
    private readonly engine: WorkflowEngine,
    config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  protected tick(): Promise<number> {
    return this.engine.tick();
  }
}
