import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { DomainRow, RecordCheck } from './domain';

@Injectable()
export class DomainsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('domains');
  }

  /** Null when the project already has this domain. */
  insert(projectId: string, domain: string, selector: string, publicKey: string, encryptedPrivateKey: string): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(
      `INSERT INTO ${this.table} (project_id, domain, dkim_selector, dkim_public_key, dkim_private_key)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, domain) DO NOTHING RETURNING *`,
      [projectId, domain, selector, publicKey, encryptedPrivateKey],
    );
  }

  listByProject(projectId: string): Promise<DomainRow[]> {
    return this.db.rows<DomainRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 ORDER BY created_at DESC, id DESC`, [projectId]);
  }

  findById(projectId: string, id: string): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2`, [projectId, id]);
  }

  /** The project's verified domain of that name (sender checks and DKIM signing). */
  findVerified(projectId: string, domain: string): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND domain = $2 AND status = 'verified'`, [projectId, domain]);
  }

  /** The projects that verified this domain (or still have it, degraded): where its inbound mail goes. */
  async projectsReceiving(domain: string): Promise<string[]> {
    const rows = await this.db.rows<{ project_id: string }>(`SELECT project_id FROM ${this.table} WHERE domain = $1 AND status IN ('verified', 'degraded') ORDER BY created_at`, [domain]);
    return rows.map((r) => r.project_id);
  }

  /** The project's domain of that name whatever its status (the sender check of /v1/send). */
  findByName(projectId: string, domain: string): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND domain = $2`, [projectId, domain]);
  }

  /**
   * Records a check: all records found → `verified`; some missing → a pending domain stays
   * `pending`, a verified (or degraded) one is `degraded`. The next check comes after
   * `pendingSeconds` unless the domain is verified now (`verifiedSeconds`: the daily re-check).
   */
  async saveCheck(id: string, checks: RecordCheck[], verified: boolean, pendingSeconds: number, verifiedSeconds: number): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(
      `UPDATE ${this.table} SET checks = $2::jsonb, last_checked_at = now(), updated_at = now(), claimed_until = NULL,
              next_check_at = now() + make_interval(secs => CASE WHEN $3::boolean THEN $5::float8 ELSE $4::float8 END),
              status = CASE WHEN $3::boolean THEN 'verified' WHEN status = 'pending' THEN 'pending' ELSE 'degraded' END,
              verified_at = CASE WHEN $3 AND verified_at IS NULL THEN now() ELSE verified_at END
        WHERE id = $1 RETURNING *`,
      [id, JSON.stringify(checks), verified, pendingSeconds, verifiedSeconds],
    );
  }

  /** Domains due for their background check (pending, verified or degraded); several replicas never claim the same one. */
  claimDue(limit: number, leaseSeconds: number): Promise<DomainRow[]> {
    return this.db.claimDue<DomainRow>({
      table: this.table,
      where: `next_check_at <= now()`,
      orderBy: 'next_check_at ASC',
      limit,
      lease: { column: 'claimed_until', seconds: leaseSeconds },
    });
  }

  /** What still uses the domain: templates and campaigns not yet finished. */
  async usage(id: string): Promise<{ templates: number; campaigns: number }> {
    const row = await this.db.one<{ templates: number; campaigns: number }>(
      `SELECT (SELECT count(*)::int FROM ${this.db.table('templates')} WHERE domain_id = $1) AS templates,
              (SELECT count(*)::int FROM ${this.db.table('campaigns')} WHERE domain_id = $1 AND status IN ('DRAFT', 'SCHEDULED', 'SENDING')) AS campaigns`,
      [id],
    );
    return row!;
  }

  /** Deletes unless in use (checked in the same statement, under a row lock). */
  async delete(projectId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.table} WHERE project_id = $1 AND id = $2`, [projectId, id])) > 0;
  }

  /** Locks the row for the rest of the transaction (delete vs. a new template or campaign). */
  lock(projectId: string, id: string): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2 FOR UPDATE`, [projectId, id]);
  }

  /** Locks the verified domain of a sender (a template or campaign insert vs. the domain's delete). */
  lockVerified(projectId: string, domain: string): Promise<DomainRow | null> {
    return this.db.one<DomainRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND domain = $2 AND status = 'verified' FOR SHARE`, [projectId, domain]);
  }
}
