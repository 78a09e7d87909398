import { Injectable } from '@nestjs/common';
import type { JobRow, JobType, RowError } from './job';
import { JobsRepository } from './jobs.repository';
import { JOB_LEASE_SECONDS, JobsWorker, type JobHandler } from './jobs.worker';

/**
 * Background jobs for the features that queue them (CSV imports, bulk actions): a feature registers
 * the handler of its job types, queues jobs, reads them back for its own project, and reports
 * progress from the handler (in the batch's transaction, which extends the lease).
 */
@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly worker: JobsWorker,
  ) {}

  register(type: JobType, handler: JobHandler): void {
    this.worker.register(type, handler);
  }

  /** A waiting job; the local worker looks for it at once. */
  async queue(projectId: string, type: JobType, payload: Record<string, unknown>, input: string | null, total: number): Promise<JobRow> {
    const job = await this.jobs.create(projectId, type, payload, input, total);
    this.worker.wake();
    return job;
  }

  /** The project's job of one of these types, or null. */
  find(projectId: string, id: string, types: JobType[]): Promise<JobRow | null> {
    return this.jobs.find(projectId, id, types);
  }

  /** Progress after a batch, in the batch's transaction (a resumed job starts after `processed`); renews the lease. */
  progress(id: string, processed: number, newErrors: RowError[], result: Record<string, unknown> | null = null): Promise<void> {
    return this.jobs.progress(id, processed, newErrors, JOB_LEASE_SECONDS, result);
  }

  complete(id: string, result: Record<string, unknown>): Promise<void> {
    return this.jobs.complete(id, result);
  }
}
