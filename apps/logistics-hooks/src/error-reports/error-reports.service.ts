import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { LogisticsErrorReported, Outbox } from '@platform/messaging';
import type { ListErrorsQuery, ReportErrorDto, UpdateErrorDto } from './dto/error-requests.dto';
import { ErrorRecordsRepository, type ErrorChanges, type ErrorRecord } from './error-records.repository';
import { allowedErrorMoves, canMoveError, ERROR_STATES } from './error-status';
import { SEVERITIES } from './dto/error-requests.dto';

export type { ErrorRecord };

/** SHA-256 (hex) of the message: the fingerprint that deduplicates reports (spec, part F). */
export function errorFingerprint(message: string): string {
  return createHash('sha256').update(message, 'utf8').digest('hex');
}

/** Error monitoring: reports deduplicated by fingerprint, announced through the outbox, managed by admins. */
@Injectable()
export class ErrorReportsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly records: ErrorRecordsRepository,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Stores a new record or counts one more occurrence of a known one, and enqueues
   * `logistics.error_reported` in the same transaction (published once it committed; every replica's
   * dashboards get it through the Socket.IO fan-out).
   */
  report(dto: ReportErrorDto): Promise<{ record: ErrorRecord; isNew: boolean }> {
    return this.transactions.transaction(async () => {
      const result = await this.records.upsert({
        fingerprint: errorFingerprint(dto.message),
        message: dto.message,
        source: dto.source ?? 'unknown',
        severity: dto.severity ?? 'error',
        stack: dto.stack ?? null,
        context: dto.context ?? null,
      });
      const { record, isNew } = result;
      await this.outbox.enqueue(LogisticsErrorReported, {
        errorId: record.id,
        source: record.source,
        message: record.message,
        severity: record.severity,
        occurrences: record.occurrences,
        isNew,
        reportedAt: record.last_seen,
      });
      return result;
    });
  }

  list(query: ListErrorsQuery): Promise<{ errors: ErrorRecord[]; total: number }> {
    return this.records.list({ status: query.status, severity: query.severity, source: query.source, limit: query.limit ?? 50, offset: query.offset ?? 0 });
  }

  find(id: string): Promise<ErrorRecord | null> {
    return this.records.findById(id);
  }

  async stats(): Promise<Record<string, unknown>> {
    const s = await this.records.stats();
    const fill = (values: readonly string[], got: Record<string, number>) => Object.fromEntries(values.map((v) => [v, got[v] ?? 0]));
    return {
      total: s.total,
      occurrences: s.occurrences,
      last_24h: s.last_24h,
      by_status: fill(ERROR_STATES, s.by_status),
      by_severity: fill(SEVERITIES, s.by_severity),
      top: (await this.records.top(5)).map((r) => ({ id: r.id, message: r.message, source: r.source, occurrences: r.occurrences, status: r.status })),
    };
  }

  update(id: string, dto: UpdateErrorDto): Promise<ErrorRecord> {
    const changes: ErrorChanges = {};
    if (dto.status !== undefined) changes.status = dto.status;
    if (dto.proposed_fix !== undefined) changes.proposedFix = dto.proposed_fix;
    if (dto.notes !== undefined) changes.notes = dto.notes;
    if (Object.keys(changes).length === 0) {
      throw new ApiError(400, 'NOTHING_TO_UPDATE', 'No field to change was given', { suggestion: 'Send at least one of status, proposed_fix or notes.' });
    }
    return this.transactions.transaction(async () => {
      const current = await this.records.lockById(id);
      if (!current) throw errorNotFound(id);
      if (changes.status && !canMoveError(current.status, changes.status)) {
        throw new ApiError(409, 'INVALID_STATUS_TRANSITION', `Error ${id} cannot move from "${current.status}" to "${changes.status}"`, {
          suggestion: `From "${current.status}" the allowed states are ${allowedErrorMoves(current.status).map((s) => `"${s}"`).join(', ')}. Nothing was changed.`,
        });
      }
      return (await this.records.update(id, changes))!;
    });
  }

  async delete(id: string): Promise<void> {
    if (!(await this.records.delete(id))) throw errorNotFound(id);
  }
}

function errorNotFound(id: string): ApiError {
  return new ApiError(404, 'ERROR_NOT_FOUND', `Error record ${id} not found`, { suggestion: 'List the records with GET /api/errors.' });
}
