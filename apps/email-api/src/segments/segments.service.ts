import { Injectable, type OnModuleInit } from '@nestjs/common';
import { References } from '../usage/references.service';
import { conditionField } from '../usage/usage';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { EmailApiConfig } from '../config';
import type { Contact } from '../contacts/contact';
import { ContactsService } from '../contacts/contacts.service';
import { toJobView, type JobRow, type JobView } from '../jobs/job';
import { JobsService } from '../jobs/jobs.service';
import { AudienceRepository } from './audience.repository';
import type { Audience, AudienceChoice } from './audience';
import { ConditionError, validateCondition, type Condition } from './condition';
import { slugify, toSegment, type Segment, type SegmentRow } from './segment';
import { SegmentsRepository } from './segments.repository';
import { ExecutionsService } from '../workflows/executions.service';

export const segmentNotFound = () => new ApiError(404, 'SEGMENT_NOT_FOUND', 'Segment not found', { suggestion: 'List the project\'s segments with GET /segments.' });

const COMPUTE_BATCH = 1000;

export interface ComputeResult {
  added: number;
  removed: number;
  total: number;
}

/** A recompute queued as a job (the project has more than SEGMENT_COMPUTE_INLINE_MAX contacts). */
export interface ComputeQueued {
  jobId: string;
  total: number;
  message: string;
}

/** What a SEGMENT_COMPUTE job keeps between batches (`result`): the cursor and the counts so far. */
interface ComputeProgress {
  after: string | null;
  added: number;
  removed: number;
  total?: number;
}

export const computeJobNotFound = () =>
  new ApiError(404, 'JOB_NOT_FOUND', 'Job not found', { suggestion: 'Use the jobId that POST /segments/{id}/compute answered; jobs are visible to their own project only.' });

export interface CreateSegment {
  name: string;
  description?: string | null;
  type: 'DYNAMIC' | 'STATIC';
  condition?: unknown;
  trackMembership?: boolean;
}

@Injectable()
export class SegmentsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly segments: SegmentsRepository,
    private readonly audiences: AudienceRepository,
    private readonly contacts: ContactsService,
    private readonly jobs: JobsService,
    private readonly config: EmailApiConfig,
    private readonly references: References,
    private readonly executions: ExecutionsService,
  ) {}

  onModuleInit(): void {
    this.jobs.register('SEGMENT_COMPUTE', (job) => this.runComputeJob(job));
    this.references.register('segments', async (projectId, ref) =>
      (await this.segments.referencing(projectId, conditionField(ref))).map((r) => ({ ...r, where: ['condition'] })),
    );
  }

  async list(projectId: string): Promise<Segment[]> {
    return (await this.segments.list(projectId)).map(toSegment);
  }

  async get(projectId: string, id: string): Promise<Segment> {
    return toSegment(await this.row(projectId, id));
  }

  async row(projectId: string, id: string, lock = false): Promise<SegmentRow> {
    const row = await this.segments.findById(projectId, id, lock);
    if (!row) throw segmentNotFound();
    return row;
  }

  async create(projectId: string, dto: CreateSegment): Promise<Segment> {
    if (dto.type === 'STATIC' && dto.condition !== undefined && dto.condition !== null) throw staticCondition();
    if (dto.type === 'DYNAMIC' && (dto.condition === undefined || dto.condition === null)) throw new ConditionError('A DYNAMIC segment needs a condition');
    if (dto.type === 'STATIC' && dto.trackMembership) throw new ConditionError('trackMembership is for DYNAMIC segments (STATIC membership is always kept)');
    const condition = dto.type === 'DYNAMIC' ? (dto.condition as Condition) : null;
    return this.transactions.transaction(async () => {
      if (condition) await this.checkCondition(projectId, condition, null);
      const row = await this.segments.insert(projectId, {
        name: dto.name,
        slug: slugify(dto.name),
        description: dto.description ?? null,
        type: dto.type,
        condition,
        trackMembership: dto.trackMembership ?? false,
      });
      const count = await this.audiences.count(projectId, membership(row!));
      return toSegment((await this.segments.saveCount(row!.id, count))!);
    });
  }

  async update(projectId: string, id: string, dto: { name?: string; description?: string | null; condition?: unknown; trackMembership?: boolean }): Promise<Segment> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.type === 'STATIC' && dto.condition !== undefined) throw staticCondition();
      if (row.type === 'STATIC' && dto.trackMembership) throw new ConditionError('trackMembership is for DYNAMIC segments');
      if (dto.condition !== undefined) {
        if (dto.condition === null) throw new ConditionError('A DYNAMIC segment needs a condition');
        await this.checkCondition(projectId, dto.condition as Condition, id);
      }
      const updated = await this.segments.update(id, {
        name: dto.name,
        slug: dto.name ? slugify(dto.name) : undefined,
        description: dto.description,
        condition: dto.condition as Condition | undefined,
        trackMembership: dto.trackMembership,
      });
      const count = await this.audiences.count(projectId, membership(updated!));
      return toSegment((await this.segments.saveCount(id, count))!);
    });
  }

  async remove(projectId: string, id: string): Promise<void> {
    await this.transactions.transaction(async () => {
      await this.row(projectId, id, true);
      const campaigns = await this.segments.activeCampaigns(id);
      if (campaigns) {
        throw new ApiError(409, 'SEGMENT_IN_USE', `The segment is the audience of ${campaigns} draft, scheduled or sending campaign(s)`, {
          suggestion: 'Change the audience of those campaigns, cancel or delete them first.',
        });
      }
      const running = await this.executions.activeUsingSegment(id);
      if (running.executions) {
        throw new ApiError(409, 'SEGMENT_IN_USE', `The segment triggers workflow(s) with ${running.executions} running or waiting execution(s): ${running.workflows.join(', ')}`, {
          suggestion: 'Cancel those executions (POST /workflows/{id}/executions/cancel-all) or let them finish, then delete the segment.',
        });
      }
      const referencing = await this.segments.referencedBy(projectId, id);
      if (referencing.length) {
        throw new ApiError(409, 'SEGMENT_IN_USE', `The segment is referenced by the condition of: ${referencing.join(', ')}`, { suggestion: 'Remove the reference from those segments first.' });
      }
      await this.segments.delete(id);
    });
  }

  /** Live contacts of the segment, a page at a time (newest first). */
  async contactsPage(projectId: string, id: string, page: number, pageSize: number): Promise<{ data: Contact[]; total: number; page: number; pageSize: number; totalPages: number }> {
    const row = await this.row(projectId, id);
    const audience = membership(row);
    const [total, data] = await Promise.all([this.audiences.count(projectId, audience), this.audiences.page(projectId, audience, pageSize, (page - 1) * pageSize)]);
    return { data, total, page, pageSize, totalPages: Math.ceil(total / pageSize) };
  }

  /** POST /segments/:id/refresh: the count only. */
  async refresh(projectId: string, id: string): Promise<Segment> {
    const row = await this.row(projectId, id);
    const count = await this.audiences.count(projectId, membership(row));
    return toSegment((await this.segments.saveCount(id, count))!);
  }

  /**
   * POST /segments/:id/compute: diff the membership of a tracked dynamic segment in batches (each
   * batch one transaction: memberships, `segment.<slug>.entry|exit` events and their
   * `email.event_tracked` outbox rows). Up to SEGMENT_COMPUTE_INLINE_MAX contacts in the project it
   * runs in the request; above, it is queued as a `SEGMENT_COMPUTE` job and the answer is its id.
   */
  async compute(projectId: string, id: string): Promise<ComputeResult | ComputeQueued> {
    const row = await this.trackedRow(projectId, id);
    await this.checkCondition(projectId, row.condition!, row.id);
    const contacts = await this.audiences.projectContacts(projectId);
    if (contacts > this.config.SEGMENT_COMPUTE_INLINE_MAX) {
      const job = await this.jobs.queue(projectId, 'SEGMENT_COMPUTE', { segmentId: id }, null, contacts);
      return { jobId: job.id, total: contacts, message: `Recompute queued; poll GET /segments/${id}/compute/${job.id}` };
    }
    let progress: ComputeProgress = { after: null, added: 0, removed: 0 };
    do progress = await this.transactions.transaction(() => this.computeStep(projectId, row, progress));
    while (progress.after !== null);
    return this.finishCompute(projectId, row, progress);
  }

  /** GET /segments/:id/compute/:jobId. */
  async computeJob(projectId: string, id: string, jobId: string): Promise<JobView> {
    await this.row(projectId, id);
    const job = await this.jobs.find(projectId, jobId, ['SEGMENT_COMPUTE']);
    if (!job || job.payload['segmentId'] !== id) throw computeJobNotFound();
    const view = toJobView(job);
    const r = job.result as ComputeProgress | null;
    return { ...view, result: r ? { added: r.added, removed: r.removed, ...(r.total !== undefined ? { total: r.total } : {}) } : null };
  }

  /** The worker's side: resumes after the last committed batch (its cursor is in the job's result). */
  private async runComputeJob(job: JobRow): Promise<void> {
    const row = await this.segments.findById(job.project_id, String(job.payload['segmentId']), false);
    if (!row || row.type !== 'DYNAMIC' || !row.track_membership) {
      await this.jobs.complete(job.id, { added: 0, removed: 0, total: 0, skipped: 'the segment was deleted or no longer tracks its membership' });
      return;
    }
    const saved = job.result as ComputeProgress | null;
    let progress: ComputeProgress = saved ?? { after: null, added: 0, removed: 0 };
    let processed = job.processed;
    // A saved cursor of null: every batch committed before the worker stopped; only the count is left.
    if (!saved || saved.after !== null) do {
      progress = await this.transactions.transaction(async () => {
        const next = await this.computeStep(job.project_id, row, progress, job.id);
        processed = Math.min(job.total, processed + COMPUTE_BATCH);
        await this.jobs.progress(job.id, processed, [], { ...next });
        return next;
      });
    } while (progress.after !== null);
    const result = await this.finishCompute(job.project_id, row, progress);
    await this.jobs.complete(job.id, { ...result });
  }

  private async computeStep(projectId: string, row: SegmentRow, progress: ComputeProgress, correlationId: string | null = null): Promise<ComputeProgress> {
    const segment = { id: row.id, slug: row.slug, name: row.name, condition: row.condition! };
    const batch = await this.audiences.computeBatch(projectId, segment, progress.after, COMPUTE_BATCH, correlationId);
    return { after: batch.last, added: progress.added + batch.added, removed: progress.removed + batch.removed };
  }

  private async finishCompute(projectId: string, row: SegmentRow, progress: ComputeProgress): Promise<ComputeResult> {
    const total = await this.audiences.count(projectId, membership(row));
    await this.segments.saveCount(row.id, total);
    return { added: progress.added, removed: progress.removed, total };
  }

  private async trackedRow(projectId: string, id: string): Promise<SegmentRow> {
    const row = await this.row(projectId, id);
    if (row.type !== 'DYNAMIC' || !row.track_membership) {
      throw new ApiError(400, 'SEGMENT_NOT_TRACKED', 'Only DYNAMIC segments with trackMembership compute their membership', { suggestion: 'PATCH the segment with {"trackMembership": true}, or use POST /segments/{id}/refresh for the count.' });
    }
    return row;
  }

  /** STATIC members: add by email (optionally creating missing contacts). */
  async addMembers(projectId: string, id: string, emails: string[], createMissing: boolean, subscribed: boolean | undefined): Promise<{ added: number; created: number; notFound: string[] }> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.type !== 'STATIC') throw notStatic();
      const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
      const found = await this.contacts.findByEmails(projectId, wanted);
      const known = new Set(found.map((c) => c.email));
      const ids = found.map((c) => c.id);
      const missing = wanted.filter((e) => !known.has(e));
      let created = 0;
      if (createMissing) {
        for (const email of missing) {
          const r = await this.contacts.record(projectId, email, { subscribed, defaultSubscribed: subscribed ?? true });
          ids.push(r.contact.id);
          created += 1;
        }
      }
      const added = await this.segments.addMembers(id, ids);
      const count = await this.audiences.count(projectId, membership(row));
      await this.segments.saveCount(id, count);
      return { added, created, notFound: createMissing ? [] : missing };
    });
  }

  async removeMembers(projectId: string, id: string, emails: string[]): Promise<{ removed: number; notFound: string[] }> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.type !== 'STATIC') throw notStatic();
      const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
      const found = await this.contacts.findByEmails(projectId, wanted);
      const known = new Set(found.map((c) => c.email));
      const removed = await this.segments.removeMembers(id, found.map((c) => c.id));
      const count = await this.audiences.count(projectId, membership(row));
      await this.segments.saveCount(id, count);
      return { removed, notFound: wanted.filter((e) => !known.has(e)) };
    });
  }

  /** Validates a condition and compiles it against the project's segments (unknown segments and cycles: 400 INVALID_CONDITION). */
  private checkCondition(projectId: string, condition: Condition, selfId: string | null): Promise<void> {
    return this.audiences.check(projectId, { kind: 'condition', condition, selfId });
  }

  /**
   * A campaign's FILTERED audience: checks the condition (field errors under `path`) and that the
   * segments it references exist without a cycle; answers it as a Condition.
   */
  async checkAudienceCondition(projectId: string, input: unknown, path: string): Promise<Condition> {
    validateCondition(input, path);
    const condition = input as Condition;
    await this.checkCondition(projectId, condition, null);
    return condition;
  }

  /** Whether the segment is of this project; it cannot be deleted until the open transaction ends. */
  existsLocked(projectId: string, id: string): Promise<boolean> {
    return this.segments.existsLocked(projectId, id);
  }

  /** How many subscribed contacts a campaign audience reaches (404 SEGMENT_NOT_FOUND for a missing segment). */
  async countRecipients(projectId: string, choice: AudienceChoice): Promise<number> {
    return this.audiences.count(projectId, await this.resolve(projectId, choice), true);
  }

  /** The next `limit` subscribed contacts of a campaign audience after `afterId`, in id order (the fan-out's cursor). */
  async recipients(projectId: string, choice: AudienceChoice, afterId: string | null, limit: number): Promise<Contact[]> {
    return this.audiences.recipients(projectId, await this.resolve(projectId, choice), afterId, limit);
  }

  private async resolve(projectId: string, choice: AudienceChoice): Promise<Audience> {
    if (choice.type === 'SEGMENT') return membership(await this.row(projectId, choice.segmentId!));
    if (choice.type === 'FILTERED') return { kind: 'condition', condition: choice.condition!, selfId: null };
    return { kind: 'all' };
  }
}

/** Who belongs to a segment: its condition's matches, or its STATIC members. */
const membership = (row: SegmentRow): Audience => ({ kind: 'segment', segment: { id: row.id, type: row.type, condition: row.condition } });

const staticCondition = () => new ApiError(400, 'STATIC_SEGMENT_CONDITION', 'A STATIC segment takes no condition: its members are added with POST /segments/{id}/members', { suggestion: 'Drop `condition`, or create a DYNAMIC segment.' });
const notStatic = () => new ApiError(400, 'NOT_STATIC_SEGMENT', 'Members are added to and removed from STATIC segments only; a DYNAMIC segment\'s members follow its condition', { suggestion: 'Change the condition of the dynamic segment instead.' });
