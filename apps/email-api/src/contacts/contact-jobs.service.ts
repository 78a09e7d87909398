import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { isEmail } from 'class-validator';
import { toJobView, type JobRow, type JobType, type JobView, type RowError } from '../jobs/job';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure } from '../jobs/jobs.worker';
import { RESERVED_DATA_KEYS, normalizeEmail } from './contact';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { CsvError, parseBooleanCell, parseCsv } from './csv';

const IMPORT_BATCH = 250;
const BULK_TYPES: JobType[] = ['BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'];

export const jobNotFound = () =>
  new ApiError(404, 'JOB_NOT_FOUND', 'Job not found', { suggestion: 'Use the jobId returned when the job was queued; jobs are visible to their own project only.' });

interface CsvLayout {
  emailColumn: number;
  subscribedColumn: number;
  dataColumns: Array<{ index: number; key: string }>;
}

/** Finds the columns: `email` (required), `subscribed` (optional), every other named column becomes a custom field. */
function layoutOf(header: string[]): CsvLayout {
  const names = header.map((h) => h.trim());
  const lower = names.map((h) => h.toLowerCase());
  const emailColumn = lower.indexOf('email');
  if (emailColumn < 0) {
    throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
      errors: [{ field: 'file', message: 'the CSV header has no "email" column', code: 'missing_column' }],
      suggestion: 'Put the column names in the first row; one of them must be "email". "subscribed" (true/false) is optional; other columns become custom fields.',
    });
  }
  const subscribedColumn = lower.indexOf('subscribed');
  const dataColumns = names
    .map((key, index) => ({ key, index }))
    .filter((c) => c.index !== emailColumn && c.index !== subscribedColumn && c.key !== '' && !RESERVED_DATA_KEYS.has(c.key));
  return { emailColumn, subscribedColumn, dataColumns };
}

/**
 * CSV import and bulk subscribe / unsubscribe / delete: requests are checked and queued as jobs;
 * the jobs worker runs them here in batches, each batch in one transaction with its progress.
 */
@Injectable()
export class ContactJobsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly jobs: JobsService,
    private readonly contacts: ContactsService,
    private readonly contactRows: ContactsRepository,
  ) {}

  onModuleInit(): void {
    this.jobs.register('IMPORT', (job) => this.runImport(job));
    for (const type of BULK_TYPES) this.jobs.register(type, (job) => this.runBulk(job));
  }

  async queueImport(projectId: string, file: { buffer: Buffer; originalname?: string } | undefined): Promise<{ jobId: string; total: number; message: string }> {
    if (!file || file.buffer.length === 0) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'file', message: 'a non-empty CSV file is required in the multipart field "file"', code: 'required' }],
        suggestion: 'Send multipart/form-data with the CSV in a field named "file" (at most 5 MB).',
      });
    }
    const text = file.buffer.toString('utf8');
    // A NUL byte means a binary file (or UTF-16); PostgreSQL could not store it either.
    if (text.includes('\u0000')) {
      throw new ApiError(400, 'INVALID_CSV', 'The file is not a text CSV: it contains NUL bytes', { suggestion: 'Export the contacts as a UTF-8 CSV file and upload that.' });
    }
    let records: Array<{ line: number; fields: string[] }>;
    try {
      records = parseCsv(text);
    } catch (err) {
      if (err instanceof CsvError) throw new ApiError(400, 'INVALID_CSV', `The file is not valid CSV: ${err.message}`, { suggestion: 'Check the quoting of the reported line.' });
      throw err;
    }
    if (records.length === 0) throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors: [{ field: 'file', message: 'the CSV is empty', code: 'too_small' }] });
    layoutOf(records[0].fields);
    const job = await this.jobs.queue(projectId, 'IMPORT', { filename: file.originalname ?? null }, text, records.length - 1);
    return { jobId: job.id, total: job.total, message: 'Import queued; poll GET /contacts/import/:jobId' };
  }

  async queueBulk(projectId: string, type: JobType, contactIds: string[]): Promise<{ jobId: string; total: number; message: string }> {
    const ids = [...new Set(contactIds)];
    const job = await this.jobs.queue(projectId, type, { contactIds: ids }, null, ids.length);
    return { jobId: job.id, total: job.total, message: 'Bulk action queued; poll GET /contacts/bulk/:jobId' };
  }

  async getImport(projectId: string, jobId: string): Promise<JobView> {
    const job = await this.jobs.find(projectId, jobId, ['IMPORT']);
    if (!job) throw jobNotFound();
    return toJobView(job);
  }

  async getBulk(projectId: string, jobId: string): Promise<JobView> {
    const job = await this.jobs.find(projectId, jobId, BULK_TYPES);
    if (!job) throw jobNotFound();
    return toJobView(job);
  }

  private async runImport(job: JobRow): Promise<void> {
    if (job.input === null) throw new JobFailure('the uploaded file is gone');
    const records = parseCsv(job.input);
    const layout = layoutOf(records[0].fields);
    const rows = records.slice(1);
    const previous = (job.result ?? {}) as { created?: number; updated?: number; failed?: number };
    const counts = { created: previous.created ?? 0, updated: previous.updated ?? 0, failed: previous.failed ?? 0 };
    for (let start = job.processed; start < rows.length; start += IMPORT_BATCH) {
      const batch = rows.slice(start, start + IMPORT_BATCH);
      await this.transactions.transaction(async () => {
        const errors: RowError[] = [];
        for (const record of batch) {
          const cells = record.fields;
          const email = normalizeEmail(cells[layout.emailColumn] ?? '');
          if (!isEmail(email)) {
            errors.push({ row: record.line, email: cells[layout.emailColumn] ?? '', message: email ? 'invalid email address' : 'missing email' });
            continue;
          }
          let subscribed: boolean | undefined;
          if (layout.subscribedColumn >= 0) {
            const parsed = parseBooleanCell(cells[layout.subscribedColumn] ?? '');
            if (parsed === null) {
              errors.push({ row: record.line, email, message: `subscribed must be true or false, got "${cells[layout.subscribedColumn]}"` });
              continue;
            }
            subscribed = parsed;
          }
          const set: Record<string, unknown> = {};
          for (const column of layout.dataColumns) {
            const value = cells[column.index];
            if (value !== undefined && value.trim() !== '') set[column.key] = value.trim();
          }
          const result = await this.contacts.record(job.project_id, email, { subscribed, defaultSubscribed: true, patch: { set, unset: [] } });
          if (result.isNew) counts.created += 1;
          else counts.updated += 1;
        }
        counts.failed += errors.length;
        await this.jobs.progress(job.id, start + batch.length, errors, counts);
      });
    }
    await this.jobs.complete(job.id, { ...counts, total: rows.length });
  }

  private async runBulk(job: JobRow): Promise<void> {
    const ids = (job.payload['contactIds'] as string[] | undefined) ?? [];
    await this.transactions.transaction(async () => {
      const existing = new Set(await this.contactRows.existingIds(job.project_id, ids));
      const notFound = ids.filter((id) => !existing.has(id));
      const errors: RowError[] = ids.flatMap((id, i) => (existing.has(id) ? [] : [{ row: i + 1, id, message: 'contact not found in this project' }]));
      let changed = 0;
      if (job.type === 'BULK_DELETE') {
        changed = await this.contactRows.deleteMany(job.project_id, [...existing]);
      } else {
        changed = (await this.contacts.setSubscribed(job.project_id, [...existing], job.type === 'BULK_SUBSCRIBE')).length;
      }
      await this.jobs.progress(job.id, ids.length, errors);
      await this.jobs.complete(
        job.id,
        { requested: ids.length, [job.type === 'BULK_DELETE' ? 'deleted' : 'updated']: changed, unchanged: existing.size - changed, notFound: notFound.length },
      );
    });
  }
}
