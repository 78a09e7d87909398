import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface TemplateRow {
  id: string;
  project_id: string;
  domain_id: string;
  name: string;
  subject: string;
  body: string;
  from_email: string;
  created_at: Date;
  updated_at: Date;
}

export interface Template {
  id: string;
  name: string;
  subject: string;
  body: string;
  from: string;
  createdAt: Date;
  updatedAt: Date;
}

export const toTemplate = (r: TemplateRow): Template => ({ id: r.id, name: r.name, subject: r.subject, body: r.body, from: r.from_email, createdAt: r.created_at, updatedAt: r.updated_at });

@Injectable()
export class TemplatesRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('templates');
  }

  async insert(projectId: string, domainId: string, t: { name: string; subject: string; body: string; from: string }): Promise<TemplateRow> {
    return (await this.db.one<TemplateRow>(
      `INSERT INTO ${this.table} (project_id, domain_id, name, subject, body, from_email) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [projectId, domainId, t.name, t.subject, t.body, t.from],
    ))!;
  }

  list(projectId: string): Promise<TemplateRow[]> {
    return this.db.rows<TemplateRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 ORDER BY created_at DESC, id DESC`, [projectId]);
  }

  findById(projectId: string, id: string, lock = false): Promise<TemplateRow | null> {
    return this.db.one<TemplateRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [projectId, id]);
  }

  update(id: string, domainId: string, t: { name: string; subject: string; body: string; from: string }): Promise<TemplateRow | null> {
    return this.db.one<TemplateRow>(
      `UPDATE ${this.table} SET domain_id = $2, name = $3, subject = $4, body = $5, from_email = $6, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, domainId, t.name, t.subject, t.body, t.from],
    );
  }

  async delete(id: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
  }

  /** Campaigns made from the template (`active`: DRAFT, SCHEDULED or SENDING only). */
  campaigns(id: string, active: boolean): Promise<Array<{ id: string; name: string; status: string }>> {
    return this.db.rows(
      `SELECT id, name, status FROM ${this.db.table('campaigns')} WHERE template_id = $1${active ? ` AND status IN ('DRAFT', 'SCHEDULED', 'SENDING')` : ''} ORDER BY created_at DESC`,
      [id],
    );
  }

  /** Templates whose subject or body matches the placeholder pattern (PostgreSQL regular expression). */
  async referencing(projectId: string, pattern: string): Promise<Array<{ id: string; name: string; where: string[] }>> {
    return this.db.rows(
      `SELECT id, name, array_remove(ARRAY[CASE WHEN subject ~ $2 THEN 'subject' END, CASE WHEN body ~ $2 THEN 'body' END], NULL) AS where
         FROM ${this.db.table('templates')} WHERE project_id = $1 AND (subject ~ $2 OR body ~ $2) ORDER BY name, id`,
      [projectId, pattern],
    );
  }
}
