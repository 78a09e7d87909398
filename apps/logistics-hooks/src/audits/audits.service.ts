import { Inject, Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { LogisticsAuditFlagged, Outbox } from '@platform/messaging';
import { LogisticsHooksConfig } from '../config';
import { auditOutcome, mergeChecks, ownChecks, type AuditCheck, type AuditOutcome } from './audit-outcome';
import { AuditsRepository } from './audits.repository';
import type { AnAuditDto } from './dto/an-audit.dto';

export interface AuditResult {
  audit_id: string;
  shipment_ref: string | null;
  outcome: AuditOutcome;
  score: number;
  threshold: number;
  notification: 'queued' | 'not_needed' | 'not_configured';
  checks: AuditCheck[];
  audited_at: string;
}

/** Arrival-notice audits: stored with their outcome and score; a low score enqueues the notification webhook in the same transaction. */
@Injectable()
export class AuditsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly audits: AuditsRepository,
    private readonly outbox: Outbox,
    @Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig,
  ) {}

  audit(dto: AnAuditDto): Promise<AuditResult> {
    const notice = dto.notice;
    const checks = mergeChecks(ownChecks(notice), dto.checks ?? []);
    const { outcome, score } = auditOutcome(checks, notice);
    const threshold = this.config.AUDIT_SCORE_THRESHOLD;
    const shipmentRef = notice.containers?.[0] ?? notice.bill_of_lading ?? notice.booking ?? null;
    const low = score < threshold;
    const notify = low && !!this.config.AUDIT_WEBHOOK_URL;
    return this.transactions.transaction(async () => {
      const stored = await this.audits.insert({ shipmentRef, outcome, score, checks, notice, notified: notify });
      if (notify) {
        await this.outbox.enqueue(LogisticsAuditFlagged, {
          event: 'an_audit.low_score',
          audit_id: stored.id,
          shipment_ref: shipmentRef,
          outcome,
          score,
          threshold,
          failed_checks: checks.filter((c) => !c.passed).map((c) => ({ name: c.name, stop_processing: c.stop_processing, message: c.message })),
          audited_at: stored.created_at,
        });
      }
      return { audit_id: stored.id, shipment_ref: shipmentRef, outcome, score, threshold, notification: notify ? 'queued' : low ? 'not_configured' : 'not_needed', checks, audited_at: stored.created_at };
    });
  }
}
