import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { JsonObject, NewVersion, ProjectRow, SourceKind, VersionedField, VersionRow } from './projects.types';

export interface ProjectInsert {
  id: string;
  title: string;
  description: string;
  github_repo: string | null;
  prd: JsonObject;
  features: unknown[];
  docs: unknown[];
  data: JsonObject;
  pinned: boolean;
  color: string;
  icon: string;
}

const JSON_FIELDS = new Set(['prd', 'features', 'docs', 'data']);
const COLUMNS = new Set(['title', 'description', 'github_repo', 'prd', 'features', 'docs', 'data', 'pinned', 'color', 'icon']);
/** A project row's columns, named (not `*`): the list, read on every page of projects, is planned once per connection. */
const ROW = ['id', ...COLUMNS, 'created_at', 'updated_at'].join(', ');

/**
 * The project aggregate: a project row, its links to knowledge sources (`project_sources`) and the
 * versions of its JSON fields and documents (`project_versions`).
 */
@Injectable()
export class ProjectsRepository {
  constructor(private readonly db: Database) {}

  private get projects(): string {
    return this.db.table('projects');
  }
  private get links(): string {
    return this.db.table('project_sources');
  }
  private get versions(): string {
    return this.db.table('project_versions');
  }

  /** Whether the projects and tasks tables exist (the projects health check). */
  async tablesPresent(): Promise<{ projects: boolean; tasks: boolean }> {
    const row = await this.db.one<{ projects: boolean; tasks: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AS projects, to_regclass($2) IS NOT NULL AS tasks`,
      [this.projects, this.db.table('tasks')],
    );
    return row ?? { projects: false, tasks: false };
  }

  /** Inserts the project unless it exists (a creation job run again after a takeover); returns whether it did. */
  async insert(p: ProjectInsert): Promise<boolean> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${this.projects} (id, title, description, github_repo, prd, features, docs, data, pinned, color, icon)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [p.id, p.title, p.description, p.github_repo, JSON.stringify(p.prd), JSON.stringify(p.features), JSON.stringify(p.docs), JSON.stringify(p.data), p.pinned, p.color, p.icon],
    );
    return !!row;
  }

  find(id: string, forUpdate = false): Promise<ProjectRow | null> {
    return this.db.one<ProjectRow>(`SELECT ${ROW} FROM ${this.projects} WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  }

  exists(id: string): Promise<boolean> {
    return this.db.one<{ ok: number }>(`SELECT 1 AS ok FROM ${this.projects} WHERE id = $1`, [id]).then((r) => !!r);
  }

  /** Pinned first, then newest first. */
  list(): Promise<ProjectRow[]> {
    return this.db.rows<ProjectRow>(`SELECT ${ROW} FROM ${this.projects} ORDER BY pinned DESC, created_at DESC, id`);
  }

  async update(id: string, fields: Partial<Record<string, unknown>>): Promise<ProjectRow | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, value] of Object.entries(fields)) {
      if (!COLUMNS.has(key) || value === undefined) continue;
      params.push(JSON_FIELDS.has(key) ? JSON.stringify(value) : value);
      sets.push(`${key} = $${params.length}`);
    }
    sets.push('updated_at = now()');
    return this.db.one<ProjectRow>(`UPDATE ${this.projects} SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
  }

  delete(id: string): Promise<number> {
    return this.db.affected(`DELETE FROM ${this.projects} WHERE id = $1`, [id]);
  }

  /** The linked source ids of these projects, by kind, in their order. */
  async linksOf(projectIds: string[]): Promise<Array<{ project_id: string; source_id: string; kind: SourceKind }>> {
    if (!projectIds.length) return [];
    return this.db.rows(
      `SELECT project_id, source_id, kind FROM ${this.links} WHERE project_id = ANY($1::uuid[]) ORDER BY project_id, kind, position`,
      [projectIds],
    );
  }

  /** Replaces the project's links of one kind by these sources (in this order). */
  async setLinks(projectId: string, kind: SourceKind, sourceIds: string[]): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.links} WHERE project_id = $1 AND kind = $2`, [projectId, kind]);
    if (!sourceIds.length) return;
    await this.db.affected(
      `INSERT INTO ${this.links} (project_id, source_id, kind, position)
       SELECT $1, t.source_id, $2, t.n FROM unnest($3::text[]) WITH ORDINALITY AS t(source_id, n)
       ON CONFLICT DO NOTHING`,
      [projectId, kind, sourceIds],
    );
  }

  /** Records a version; its number is the next of the project's field (the caller holds the project's row lock). */
  addVersion(projectId: string, id: string, v: NewVersion): Promise<VersionRow | null> {
    return this.db.one<VersionRow>(
      `INSERT INTO ${this.versions} (id, project_id, field_name, version_number, document_id, content, change_summary, change_type, created_by)
       SELECT $1, $2, $3, COALESCE(max(version_number), 0) + 1, $4, $5, $6, $7, $8
         FROM ${this.versions} WHERE project_id = $2 AND field_name = $3
       RETURNING *`,
      [id, projectId, v.field_name, v.document_id, JSON.stringify(v.content ?? null), v.change_summary, v.change_type, v.created_by],
    );
  }

  /** Versions without their content, newest first. */
  listVersions(projectId: string, field: VersionedField | null, documentId: string | null): Promise<Omit<VersionRow, 'content'>[]> {
    return this.db.rows(
      `SELECT id, project_id, field_name, version_number, document_id, change_summary, change_type, created_by, created_at
         FROM ${this.versions}
        WHERE project_id = $1 AND ($2::text IS NULL OR field_name = $2) AND ($3::text IS NULL OR document_id = $3)
        ORDER BY created_at DESC, version_number DESC`,
      [projectId, field, documentId],
    );
  }

  findVersion(projectId: string, field: VersionedField, versionNumber: number): Promise<VersionRow | null> {
    return this.db.one<VersionRow>(
      `SELECT * FROM ${this.versions} WHERE project_id = $1 AND field_name = $2 AND version_number = $3`,
      [projectId, field, versionNumber],
    );
  }
}
