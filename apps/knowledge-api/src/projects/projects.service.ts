import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { ProgressService } from '../progress/progress.service';
import { SourcesService } from '../sources/sources.service';
import type { DocInputDto, FeatureDto, UpdateProjectDto } from './dto/project.dto';
import { ProjectsRepository } from './projects.repository';
import type { Feature, JsonObject, Project, ProjectDoc, ProjectRow, SourceKind, SourceLink, VersionedField } from './projects.types';
import { TasksRepository } from './tasks.repository';

export class ProjectNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'NOT_FOUND', 'Project not found', { suggestion: `no project ${id}; GET /api/projects lists them` });
  }
}

export type SourceRefs = Array<string | { source_id: string; title?: string }> | undefined;

/** Source ids of a list of ids or `{source_id, title}` objects, trimmed, each once, in order. */
export function sourceIdsOf(refs: SourceRefs): string[] {
  const ids = (refs ?? []).map((r) => (typeof r === 'string' ? r : r.source_id).trim()).filter(Boolean);
  return [...new Set(ids)];
}

export function toFeature(f: FeatureDto | Feature): Feature {
  return {
    id: f.id ?? randomUUID(),
    name: f.name,
    description: f.description ?? '',
    ...(f.priority !== undefined ? { priority: f.priority } : {}),
    status: f.status ?? 'planned',
  };
}

export function toDoc(d: DocInputDto | ProjectDoc, now = new Date().toISOString()): ProjectDoc {
  const existing = d as Partial<ProjectDoc>;
  return {
    id: d.id ?? randomUUID(),
    title: d.title,
    content: d.content ?? {},
    document_type: d.document_type,
    tags: d.tags ?? [],
    author: d.author ?? null,
    created_at: existing.created_at ?? now,
    updated_at: existing.updated_at ?? now,
  };
}

/** Refuses two documents or features with one id. */
export function assertUniqueIds(items: Array<{ id: string }>, what: string): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.id)) throw new ApiError(400, 'VALIDATION_FAILED', `${what} ids must be unique: ${item.id} appears twice`);
    seen.add(item.id);
  }
}

/**
 * Projects: the project row, its linked knowledge sources (checked to exist; a deleted source drops
 * out of its projects) and the versions of its JSON fields. Events go to the project's room
 * (`project:{id}` on the root namespace).
 */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly tasks: TasksRepository,
    private readonly sources: SourcesService,
    private readonly progress: ProgressService,
    private readonly transactions: Transactions,
  ) {}

  /** The titles of these sources; 400 naming those that do not exist. */
  async checkSources(ids: string[]): Promise<Map<string, string>> {
    const titles = await this.sources.titles(ids);
    const missing = ids.filter((id) => !titles.has(id));
    if (missing.length) {
      throw new ApiError(400, 'VALIDATION_FAILED', `Unknown source ids: ${missing.join(', ')}`, { suggestion: 'GET /api/rag/sources lists the sources' });
    }
    return titles;
  }

  /** The projects as the API shows them (sources with their titles). */
  async present(rows: ProjectRow[]): Promise<Project[]> {
    const links = await this.projects.linksOf(rows.map((r) => r.id));
    const titles = await this.sources.titles(links.map((l) => l.source_id));
    return rows.map((row) => {
      const of = (kind: SourceKind): SourceLink[] =>
        links.filter((l) => l.project_id === row.id && l.kind === kind).map((l) => ({ source_id: l.source_id, title: titles.get(l.source_id) ?? l.source_id }));
      return {
        ...row,
        technical_sources: of('technical'),
        business_sources: of('business'),
        created_at: new Date(row.created_at).toISOString(),
        updated_at: new Date(row.updated_at).toISOString(),
      };
    });
  }

  async list(): Promise<Project[]> {
    return this.present(await this.projects.list());
  }

  async row(id: string, forUpdate = false): Promise<ProjectRow> {
    const row = await this.projects.find(id, forUpdate);
    if (!row) throw new ProjectNotFound(id);
    return row;
  }

  async get(id: string): Promise<Project> {
    return (await this.present([await this.row(id)]))[0];
  }

  async assertExists(id: string): Promise<void> {
    if (!(await this.projects.exists(id))) throw new ProjectNotFound(id);
  }

  async features(id: string): Promise<Feature[]> {
    return (await this.row(id)).features;
  }

  /**
   * Updates the given fields; each changed JSON field (docs, features, data, prd) records a version
   * holding its new content. Sources given replace the linked ones of that kind.
   */
  async update(id: string, dto: UpdateProjectDto, by = 'api'): Promise<Project> {
    const technical = dto.technical_sources !== undefined ? sourceIdsOf(dto.technical_sources) : undefined;
    const business = dto.business_sources !== undefined ? sourceIdsOf(dto.business_sources) : undefined;
    await this.checkSources([...(technical ?? []), ...(business ?? [])]);
    const row = await this.transactions.transaction(async () => {
      const current = await this.row(id, true);
      const fields: Record<string, unknown> = {};
      for (const key of ['title', 'description', 'github_repo', 'color', 'icon', 'pinned'] as const) {
        if (dto[key] !== undefined) fields[key] = dto[key];
      }
      const next: Partial<Record<VersionedField, unknown>> = {};
      if (dto.features !== undefined) next.features = dto.features.map(toFeature);
      if (dto.docs !== undefined) {
        const existing = new Map(current.docs.map((d) => [d.id, d]));
        const now = new Date().toISOString();
        next.docs = dto.docs.map((d) => {
          const before = d.id ? existing.get(d.id) : undefined;
          const doc = toDoc(d, now);
          return before ? { ...doc, created_at: before.created_at, updated_at: sameDoc(before, doc) ? before.updated_at : now } : doc;
        });
      }
      if (dto.data !== undefined) next.data = dto.data;
      if (dto.prd !== undefined) next.prd = dto.prd;
      if (next.features) assertUniqueIds(next.features as Feature[], 'feature');
      if (next.docs) assertUniqueIds(next.docs as ProjectDoc[], 'document');
      for (const [field, value] of Object.entries(next) as Array<[VersionedField, unknown]>) {
        if (stableJson(value) === stableJson(current[field])) continue;
        fields[field] = value;
        await this.projects.addVersion(id, randomUUID(), {
          field_name: field,
          document_id: null,
          content: value,
          change_summary: `Updated ${field}`,
          change_type: 'update',
          created_by: by,
        });
      }
      if (technical) await this.projects.setLinks(id, 'technical', technical);
      if (business) await this.projects.setLinks(id, 'business', business);
      return (await this.projects.update(id, fields))!;
    });
    const project = (await this.present([row]))[0];
    this.progress.emitToProject(id, 'project_updated', { project_id: id, project });
    return project;
  }

  /** Deletes the project, its tasks (archived ones too), its source links and versions. */
  async delete(id: string): Promise<{ deletedTasks: number }> {
    const deletedTasks = await this.transactions.transaction(async () => {
      await this.row(id, true);
      const n = await this.tasks.deleteForProject(id);
      await this.projects.delete(id);
      return n;
    });
    this.progress.emitToProject(id, 'project_deleted', { project_id: id, deleted_tasks: deletedTasks });
    return { deletedTasks };
  }

  /** Stored project fields replaced as one write (documents, restores), with their version. */
  async replaceField(id: string, field: VersionedField, value: unknown): Promise<ProjectRow> {
    return (await this.projects.update(id, { [field]: value }))!;
  }

  emit(projectId: string, event: string, data: unknown): void {
    this.progress.emitToProject(projectId, event, data);
  }
}

function sameDoc(a: ProjectDoc, b: ProjectDoc): boolean {
  return a.title === b.title && a.document_type === b.document_type && a.author === b.author && stableJson(a.content) === stableJson(b.content) && stableJson(a.tags) === stableJson(b.tags);
}

/** JSON with object keys sorted: equal for equal content (jsonb does not keep key order). */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
