import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { schemaOfDataSource } from '@platform/database';
import { DataSource, type EntityManager } from 'typeorm';
import { FUNNEL_COUNTERS, type FunnelCounter } from './dto/automation.dto';
import { AutomationEntity } from './entities/automation.entity';
import type { RunCounters } from './automation.presenter';

export type FunnelCounts = Record<FunnelCounter, number>;

@Injectable()
export class AutomationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(AutomationEntity);
  }

  list(accountId: number, m?: EntityManager): Promise<AutomationEntity[]> {
    return this.repo(m).find({ where: { account_id: accountId }, order: { id: 'ASC' } });
  }

  find(accountId: number, id: number, m?: EntityManager): Promise<AutomationEntity | null> {
    return this.repo(m).findOne({ where: { account_id: accountId, id } });
  }

  /** Row lock for read-modify-write (status transitions). */
  findForUpdate(m: EntityManager, accountId: number, id: number): Promise<AutomationEntity | null> {
    return this.repo(m).findOne({ where: { account_id: accountId, id }, lock: { mode: 'pessimistic_write' } });
  }

  build(fields: Partial<AutomationEntity>): AutomationEntity {
    return this.repo().create(fields);
  }

  save(a: AutomationEntity, m?: EntityManager): Promise<AutomationEntity> {
    return this.repo(m).save(a);
  }

  async remove(accountId: number, id: number, m?: EntityManager): Promise<boolean> {
    const res = await this.repo(m).delete({ account_id: accountId, id });
    return (res.affected ?? 0) > 0;
  }

  /** triggered / link_sent / clicked per automation, from the run rows (runs skipped by once_per_user, error `once_per_user`, never started). */
  async runCounters(accountId: number): Promise<Map<number, RunCounters>> {
    const rows: Array<{ automation_id: number; triggered: number; link_sent: number; clicked: number }> = await this.ds.query(
      `SELECT automation_id, (count(*) FILTER (WHERE NOT (state = 'skipped' AND error = 'once_per_user')))::int AS triggered, count(link_sent_at)::int AS link_sent, count(clicked_at)::int AS clicked
         FROM ${this.table('runs')} WHERE account_id = $1 GROUP BY automation_id`,
      [accountId],
    );
    return new Map(rows.map((r) => [r.automation_id, r]));
  }

  /** Every funnel counter per automation, from the run rows (a step counts when its stamp is set). */
  async funnelCounts(accountId: number, automationId?: number): Promise<Map<number, FunnelCounts>> {
    const params: unknown[] = [accountId];
    let filter = '';
    if (automationId !== undefined) {
      params.push(automationId);
      filter = 'AND automation_id = $2';
    }
    const rows: Array<FunnelCounts & { automation_id: number }> = await this.ds.query(
      `SELECT automation_id,
              (count(*) FILTER (WHERE NOT (state = 'skipped' AND error = 'once_per_user')))::int AS triggered,
              count(dm_sent_at)::int AS dm_sent,
              count(button_tapped_at)::int AS button_tapped,
              count(gated_at)::int AS gated,
              count(gate_passed_at)::int AS gate_passed,
              count(email_asked_at)::int AS email_asked,
              count(email_captured_at)::int AS email_captured,
              count(email_expired_at)::int AS email_expired,
              count(link_sent_at)::int AS link_sent,
              count(clicked_at)::int AS clicked,
              count(followed_up_at)::int AS followed_up,
              (count(*) FILTER (WHERE state = 'error'))::int AS errors,
              (count(*) FILTER (WHERE state = 'skipped'))::int AS skipped,
              (count(*) FILTER (WHERE state = 'skipped_other_tool'))::int AS skipped_other_tool
         FROM ${this.table('runs')} WHERE account_id = $1 ${filter} GROUP BY automation_id`,
      params,
    );
    return new Map(
      rows.map((r) => [r.automation_id, Object.fromEntries(FUNNEL_COUNTERS.map((k) => [k, r[k]])) as FunnelCounts]),
    );
  }

  private table(name: string): string {
    return `${schemaOfDataSource(this.ds)}.${name}`;
  }
}
