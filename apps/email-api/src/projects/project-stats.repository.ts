import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

@Injectable()
export class ProjectStatsRepository {
  constructor(private readonly db: Database) {}

  async counts(projectId: string): Promise<{ contacts: number; events: number; emails: number; sentEmails: number; members: number; owners: number }> {
    const row = await this.db.one<{ contacts: number; events: number; emails: number; sentEmails: number; members: number; owners: number }>(
      `SELECT (SELECT count(*)::int FROM ${this.db.table('contacts')} WHERE project_id = $1) AS contacts,
              (SELECT count(*)::int FROM ${this.db.table('events')} WHERE project_id = $1) AS events,
              (SELECT count(*)::int FROM ${this.db.table('emails')} WHERE project_id = $1) AS emails,
              (SELECT count(*)::int FROM ${this.db.table('emails')} WHERE project_id = $1 AND status = 'SENT') AS "sentEmails",
              (SELECT count(*)::int FROM ${this.db.table('project_members')} WHERE project_id = $1) AS members,
              (SELECT count(*)::int FROM ${this.db.table('project_members')} WHERE project_id = $1 AND role = 'OWNER') AS owners`,
      [projectId],
    );
    return row!;
  }

  /** Delivery outcomes of the last 30 days, by status. */
  async deliveryLast30Days(projectId: string): Promise<Record<string, number>> {
    const rows = await this.db.rows<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${this.db.table('emails')} WHERE project_id = $1 AND created_at > now() - interval '30 days' GROUP BY status`,
      [projectId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
