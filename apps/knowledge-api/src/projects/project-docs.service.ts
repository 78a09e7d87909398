import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { CreateDocDto, CreateVersionDto, UpdateDocDto } from './dto/doc.dto';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService, stableJson, toDoc } from './projects.service';
import type { Project, ProjectDoc, VersionedField, VersionRow } from './projects.types';

export interface VersionView extends Omit<VersionRow, 'created_at' | 'content'> {
  created_at: string;
  content?: unknown;
}

function view(v: Omit<VersionRow, 'content'> & { content?: unknown }, withContent: boolean): VersionView {
  const { content, ...rest } = v;
  return { ...rest, created_at: new Date(v.created_at).toISOString(), ...(withContent ? { content } : {}) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A project's documents (items of its `docs`: `{id, title, content, document_type, tags, author}`)
 * and the versions of its JSON fields. Every change records a version holding the content after
 * it (a document's own versions carry its `document_id`); restoring a version writes its content
 * back and records that as a new version, so nothing is ever lost.
 */
@Injectable()
export class ProjectDocsService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly rows: ProjectsRepository,
    private readonly transactions: Transactions,
  ) {}

  async list(projectId: string): Promise<ProjectDoc[]> {
    return (await this.projects.row(projectId)).docs;
  }

  async get(projectId: string, docId: string): Promise<ProjectDoc> {
    const doc = (await this.projects.row(projectId)).docs.find((d) => d.id === docId);
    if (!doc) throw new ApiError(404, 'NOT_FOUND', 'Document not found', { suggestion: `no document ${docId} in project ${projectId}` });
    return doc;
  }

  async create(projectId: string, dto: CreateDocDto, by = 'api'): Promise<ProjectDoc> {
    const doc = toDoc({ ...dto, id: randomUUID() });
    await this.transactions.transaction(async () => {
      const row = await this.projects.row(projectId, true);
      await this.projects.replaceField(projectId, 'docs', [...row.docs, doc]);
      await this.version(projectId, doc.id, doc, 'create', `Created document ${doc.title}`, by);
    });
    this.changed(projectId);
    return doc;
  }

  async update(projectId: string, docId: string, dto: UpdateDocDto, by = 'api'): Promise<ProjectDoc> {
    const doc = await this.transactions.transaction(async () => {
      const row = await this.projects.row(projectId, true);
      const before = row.docs.find((d) => d.id === docId);
      if (!before) throw new ApiError(404, 'NOT_FOUND', 'Document not found', { suggestion: `no document ${docId} in project ${projectId}` });
      const after: ProjectDoc = {
        ...before,
        ...(dto.title !== undefined ? { title: dto.title } : {}),
        ...(dto.document_type !== undefined ? { document_type: dto.document_type } : {}),
        ...(dto.content !== undefined ? { content: dto.content } : {}),
        ...(dto.tags !== undefined ? { tags: dto.tags } : {}),
        ...(dto.author !== undefined ? { author: dto.author } : {}),
      };
      if (stableJson(after) === stableJson(before)) return before;
      after.updated_at = new Date().toISOString();
      await this.projects.replaceField(projectId, 'docs', row.docs.map((d) => (d.id === docId ? after : d)));
      await this.version(projectId, docId, after, 'update', `Updated document ${after.title}`, by);
      return after;
    });
    this.changed(projectId);
    return doc;
  }

  async delete(projectId: string, docId: string, by = 'api'): Promise<void> {
    await this.transactions.transaction(async () => {
      const row = await this.projects.row(projectId, true);
      const before = row.docs.find((d) => d.id === docId);
      if (!before) throw new ApiError(404, 'NOT_FOUND', 'Document not found', { suggestion: `no document ${docId} in project ${projectId}` });
      await this.projects.replaceField(projectId, 'docs', row.docs.filter((d) => d.id !== docId));
      await this.version(projectId, docId, before, 'delete', `Deleted document ${before.title}`, by);
    });
    this.changed(projectId);
  }

  async versions(projectId: string, field: VersionedField | null, documentId: string | null): Promise<VersionView[]> {
    await this.projects.assertExists(projectId);
    return (await this.rows.listVersions(projectId, field, documentId)).map((v) => view(v, false));
  }

  async getVersion(projectId: string, field: VersionedField, versionNumber: number): Promise<VersionView> {
    await this.projects.assertExists(projectId);
    const v = await this.rows.findVersion(projectId, field, versionNumber);
    if (!v) throw new ApiError(404, 'NOT_FOUND', 'Version not found', { suggestion: `GET /api/projects/${projectId}/versions?field_name=${field} lists them` });
    return view(v, true);
  }

  /** Records a snapshot given by the caller (does not change the project). */
  async createVersion(projectId: string, dto: CreateVersionDto): Promise<VersionView> {
    const content = dto.content;
    if (dto.document_id !== undefined) {
      if (dto.field_name !== 'docs') throw new ApiError(400, 'VALIDATION_FAILED', 'document_id goes with field_name docs');
      if (!isObject(content) || typeof content.title !== 'string' || typeof content.document_type !== 'string') {
        throw new ApiError(400, 'VALIDATION_FAILED', 'a document version\'s content must be a document: {title, document_type, content?, tags?, author?}');
      }
    } else if (dto.field_name === 'docs' || dto.field_name === 'features') {
      if (!Array.isArray(content) || !content.every(isObject)) throw new ApiError(400, 'VALIDATION_FAILED', `content of ${dto.field_name} must be an array of objects`);
    } else if (!isObject(content)) {
      throw new ApiError(400, 'VALIDATION_FAILED', `content of ${dto.field_name} must be a JSON object`);
    }
    const stored = dto.document_id !== undefined ? toDoc({ ...(content as unknown as ProjectDoc), id: dto.document_id }) : content;
    const v = await this.transactions.transaction(async () => {
      await this.projects.row(projectId, true);
      return (await this.rows.addVersion(projectId, randomUUID(), {
        field_name: dto.field_name,
        document_id: dto.document_id ?? null,
        content: stored,
        change_summary: dto.change_summary ?? '',
        change_type: 'manual',
        created_by: dto.created_by ?? 'system',
      }))!;
    });
    return view(v, true);
  }

  /**
   * Writes a version's content back: a field version replaces the field; a document version puts
   * that document back (replacing the one with its id, or adding it again when it was deleted).
   */
  async restore(projectId: string, field: VersionedField, versionNumber: number, by: string): Promise<{ project: Project; restored: VersionView }> {
    const restored = await this.transactions.transaction(async () => {
      const row = await this.projects.row(projectId, true);
      const v = await this.rows.findVersion(projectId, field, versionNumber);
      if (!v) throw new ApiError(404, 'NOT_FOUND', 'Version not found', { suggestion: `GET /api/projects/${projectId}/versions?field_name=${field} lists them` });
      let value: unknown = v.content;
      if (v.document_id) {
        const doc = { ...(v.content as ProjectDoc), id: v.document_id, updated_at: new Date().toISOString() };
        value = row.docs.some((d) => d.id === v.document_id) ? row.docs.map((d) => (d.id === v.document_id ? doc : d)) : [...row.docs, doc];
      }
      await this.projects.replaceField(projectId, field, value);
      const created = await this.rows.addVersion(projectId, randomUUID(), {
        field_name: field,
        document_id: v.document_id,
        content: v.document_id ? (value as ProjectDoc[]).find((d) => d.id === v.document_id) : value,
        change_summary: `Restored version ${versionNumber}`,
        change_type: 'restore',
        created_by: by,
      });
      return view(created!, false);
    });
    const project = await this.projects.get(projectId);
    this.projects.emit(projectId, 'project_updated', { project_id: projectId, project });
    return { project, restored };
  }

  private async version(projectId: string, docId: string, doc: ProjectDoc, type: 'create' | 'update' | 'delete', summary: string, by: string): Promise<void> {
    await this.rows.addVersion(projectId, randomUUID(), { field_name: 'docs', document_id: docId, content: doc, change_summary: summary, change_type: type, created_by: by });
  }

  private changed(projectId: string): void {
    void this.projects
      .get(projectId)
      .then((project) => this.projects.emit(projectId, 'project_updated', { project_id: projectId, project }))
      .catch(() => undefined);
  }
}
