import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { AuditCheck, AuditOutcome } from './audit-outcome';

@Injectable()
export class AuditsRepository {
  constructor(private readonly db: Database) {}

  async insert(a: { shipmentRef: string | null; outcome: AuditOutcome; score: number; checks: AuditCheck[]; notice: unknown; notified: boolean }): Promise<{ id: string; created_at: string }> {
    const row = await this.db.one<{ id: string; created_at: Date }>(
      `INSERT INTO ${this.db.table('an_audits')} (shipment_ref, outcome, score, checks, notice, notified) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`,
      [a.shipmentRef, a.outcome, a.score, JSON.stringify(a.checks), JSON.stringify(a.notice), a.notified],
    );
    return { id: row!.id, created_at: new Date(row!.created_at).toISOString() };
  }
}
