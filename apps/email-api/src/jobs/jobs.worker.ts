import { Injectable, Logger } from '@nestjs/common';
import { EmailApiConfig } from '../config';
import { PollingWorker } from '@platform/database';
import type { JobRow, JobType } from './job';
import { JobsRepository } from './jobs.repository';

/** Runs one job; throws for an unexpected failure (retried), or returns a reason to fail it for good. */
export type JobHandler = (job: JobRow) => Promise<void>;

/** A job the handler refuses for good (bad input found late): marked failed, never retried. */
export class JobFailure extends Error {}

export const JOB_LEASE_SECONDS = 120;
const MAX_ATTEMPTS = 3;

/**
 * Works off queued jobs (CSV imports, bulk actions) with `claimDue` (FOR UPDATE SKIP LOCKED and a
 * lease): every replica runs this worker, each job goes to one of them, and a job whose worker died
 * is claimed again when its lease ends and resumes after its last committed batch.
 */
@Injectable()
export class JobsWorker extends PollingWorker {
  protected readonly logger = new Logger('JobsWorker');
  private readonly handlers = new Map<JobType, JobHandler>();

  constructor(
    private readonly jobs: JobsRepository,
    config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  register(type: JobType, handler: JobHandler): void {
    this.handlers.set(type, handler);
  }

  protected async tick(): Promise<number> {
    const claimed = await this.jobs.claim(2, JOB_LEASE_SECONDS);
    for (const job of claimed) await this.runJob(job);
    return claimed.length;
  }

  private async runJob(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.type);
    if (!handler) {
      await this.jobs.fail(job.id, `no handler for job type ${job.type}`);
      return;
    }
    try {
      await handler(job);
    } catch (err) {
      const message = (err as Error).message;
      if (err instanceof JobFailure || job.attempts >= MAX_ATTEMPTS) {
        await this.jobs.fail(job.id, message);
      } else {
        this.logger.warn(`job ${job.id} (${job.type}) attempt ${job.attempts} failed: ${message}`);
        await this.jobs.release(job.id, message, 2 ** job.attempts);
      }
    }
  }
}
