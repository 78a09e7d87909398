import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateDocDto, CreateVersionDto, ListVersionsQueryDto, RestoreVersionDto, UpdateDocDto, VersionParamsDto } from './dto/doc.dto';
import { ProjectDocsService, type VersionView } from './project-docs.service';
import type { Project, ProjectDoc } from './projects.types';
import { ApiKeyDocs } from '../common/api-key';

const uuid = new ParseUUIDPipe();

/** A project's documents and the versions of its JSON fields (not in the spec; as Archon's document and version API). */
@ApiTags('project documents and versions')
@ApiKeyDocs()
@Controller('api/projects/:project_id')
export class ProjectDocsController {
  constructor(private readonly docs: ProjectDocsService) {}

  @Get('docs')
  @ApiOperation({ summary: 'A project\'s documents', description: '`{success, project_id, documents, total_count}`; a document is `{id, title, content, document_type, tags, author, created_at, updated_at}`.' })
  async list(@Param('project_id', uuid) projectId: string): Promise<{ success: boolean; project_id: string; documents: ProjectDoc[]; total_count: number }> {
    const documents = await this.docs.list(projectId);
    return { success: true, project_id: projectId, documents, total_count: documents.length };
  }

  @Post('docs')
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a document', description: '201 `{success, message, document}`; records version 1 of the document (field `docs`, its `document_id`).' })
  async create(@Param('project_id', uuid) projectId: string, @Body() dto: CreateDocDto): Promise<{ success: boolean; message: string; document: ProjectDoc }> {
    return { success: true, message: 'Document created', document: await this.docs.create(projectId, dto) };
  }

  @Get('docs/:doc_id')
  @ApiOperation({ summary: 'Get a document', description: '`{success, document}`; 404 `{error: "Document not found"}`.' })
  async get(@Param('project_id', uuid) projectId: string, @Param('doc_id', uuid) docId: string): Promise<{ success: boolean; document: ProjectDoc }> {
    return { success: true, document: await this.docs.get(projectId, docId) };
  }

  @Put('docs/:doc_id')
  @ApiOperation({ summary: 'Update a document', description: 'Partial; a change records a version of the document (an unchanged body records none). `{success, message, document}`.' })
  async update(@Param('project_id', uuid) projectId: string, @Param('doc_id', uuid) docId: string, @Body() dto: UpdateDocDto): Promise<{ success: boolean; message: string; document: ProjectDoc }> {
    return { success: true, message: 'Document updated', document: await this.docs.update(projectId, docId, dto) };
  }

  @Delete('docs/:doc_id')
  @ApiOperation({ summary: 'Delete a document', description: '`{success, message}`; records a `delete` version holding the document, so restoring it brings it back.' })
  async delete(@Param('project_id', uuid) projectId: string, @Param('doc_id', uuid) docId: string): Promise<{ success: boolean; message: string }> {
    await this.docs.delete(projectId, docId);
    return { success: true, message: 'Document deleted' };
  }

  @Get('versions')
  @ApiOperation({
    summary: 'Versions of a project\'s JSON fields',
    description:
      '`{success, project_id, field_name, versions, total_count}`, newest first, without content: `{id, project_id, field_name (docs|features|data|prd), version_number, document_id, change_summary, change_type (create|update|delete|restore|manual), created_by, created_at}`. A version holds the content after its change; numbers count per field. Filters `field_name`, `document_id`.',
  })
  async versions(@Param('project_id', uuid) projectId: string, @Query() q: ListVersionsQueryDto): Promise<{ success: boolean; project_id: string; field_name: string | null; versions: VersionView[]; total_count: number }> {
    const versions = await this.docs.versions(projectId, q.field_name ?? null, q.document_id ?? null);
    return { success: true, project_id: projectId, field_name: q.field_name ?? null, versions, total_count: versions.length };
  }

  @Post('versions')
  @HttpCode(201)
  @ApiOperation({ summary: 'Record a version', description: 'A snapshot given by the caller (`manual`); the project does not change. With `document_id` (field `docs`) the content is one document. 201 `{success, message, version}`.' })
  async createVersion(@Param('project_id', uuid) projectId: string, @Body() dto: CreateVersionDto): Promise<{ success: boolean; message: string; version: VersionView }> {
    return { success: true, message: 'Version created', version: await this.docs.createVersion(projectId, dto) };
  }

  @Get('versions/:field_name/:version_number')
  @ApiOperation({ summary: 'One version with its content', description: '`{success, version}`; 404 `{error: "Version not found"}`.' })
  async version(@Param() p: VersionParamsDto): Promise<{ success: boolean; version: VersionView }> {
    return { success: true, version: await this.docs.getVersion(p.project_id, p.field_name, p.version_number) };
  }

  @Post('versions/:field_name/:version_number/restore')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Restore a version',
    description:
      'Writes the version\'s content back (a document version puts that document back, replacing its current state or adding it again if deleted) and records it as a new `restore` version. `{success, message, field_name, version_number, restored_version, project}`.',
  })
  async restore(
    @Param() p: VersionParamsDto,
    @Body() dto: RestoreVersionDto,
  ): Promise<{ success: boolean; message: string; field_name: string; version_number: number; restored_version: number; project: Project }> {
    const { project, restored } = await this.docs.restore(p.project_id, p.field_name, p.version_number, dto.restored_by ?? 'system');
    return {
      success: true,
      message: `Restored ${p.field_name} to version ${p.version_number}`,
      field_name: p.field_name,
      version_number: p.version_number,
      restored_version: restored.version_number,
      project,
    };
  }
}
