import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { RequestId } from '../common/request-id.decorator';
import { ContactJobsService } from './contact-jobs.service';
import { ContactsService } from './contacts.service';
import { BulkContactsDto, FieldValuesQueryDto, ListContactsQueryDto, LookupContactsDto, UpdateContactDto, UpsertContactDto } from './dto/contacts.dto';

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

@ApiTags('Contacts')
@ProjectAccess({ session: true })
@Controller('contacts')
export class ContactsController {
  constructor(
    private readonly contacts: ContactsService,
    private readonly jobs: ContactJobsService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List contacts',
    description:
      'Newest first. Cursor pagination `{data, cursor, hasMore, total}`: pass `cursor` back until `hasMore` is false; `total` is counted only on the first page (0 on later pages). ' +
      'The cursor is a keyset on (createdAt, id), so contacts created while paging never shift or repeat pages.',
  })
  list(@CurrentProject() ctx: ProjectContext, @Query() query: ListContactsQueryDto) {
    return this.contacts.list(ctx.project.id, query);
  }

  @Post()
  @ApiOperation({ summary: 'Create or update a contact by email', description: '201 when created, 200 when updated; `_meta.isNew` / `_meta.isUpdate` tell which.' })
  async upsert(@CurrentProject() ctx: ProjectContext, @Body() body: UpsertContactDto, @Res({ passthrough: true }) res: Response, @RequestId() requestId?: string) {
    const { contact, isNew } = await this.contacts.upsert(ctx.project.id, body, requestId);
    res.status(isNew ? 201 : 200);
    return { ...contact, _meta: { isNew, isUpdate: !isNew } };
  }

  @Post('lookup')
  @HttpCode(200)
  @ApiOperation({ summary: 'Which of up to 500 emails exist', description: 'Returns `{found: [{id, email, subscribed}], notFound: [email]}`.' })
  lookup(@CurrentProject() ctx: ProjectContext, @Body() body: LookupContactsDto) {
    return this.contacts.lookup(ctx.project.id, body.emails);
  }

  @Get('fields')
  @ApiOperation({ summary: 'Standard and custom fields with inferred types and coverage (percent of contacts holding the field)' })
  fields(@CurrentProject() ctx: ProjectContext) {
    return this.contacts.fields(ctx.project.id);
  }

  @Get('fields/:field/values')
  @ApiOperation({ summary: 'Distinct values of a custom field with their counts (most frequent first, default 100)' })
  fieldValues(@CurrentProject() ctx: ProjectContext, @Param('field') field: string, @Query() query: FieldValuesQueryDto) {
    return this.contacts.fieldValues(ctx.project.id, field, query.limit ?? 100);
  }

  @Get('fields/:field/usage')
  @ApiOperation({ summary: 'Where a custom field is used (contacts holding it)' })
  fieldUsage(@CurrentProject() ctx: ProjectContext, @Param('field') field: string) {
    return this.contacts.fieldUsage(ctx.project.id, field);
  }

  @Delete('fields/:field')
  @ApiOperation({ summary: 'Remove a custom field from every contact' })
  deleteField(@CurrentProject() ctx: ProjectContext, @Param('field') field: string) {
    return this.contacts.deleteField(ctx.project.id, field);
  }

  @Post('import')
  @HttpCode(202)
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_IMPORT_BYTES, files: 1 } }))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } })
  @ApiOperation({
    summary: 'Import contacts from CSV (queued)',
    description:
      'Multipart field `file`, at most 5 MB (413 above). First row: column names; `email` required, `subscribed` (true/false/yes/no/1/0) optional, every other column becomes a custom field (string). ' +
      'New contacts are subscribed unless the row says otherwise; existing ones are updated. Answers 202 `{jobId, total, message}`; bad rows are reported per row by the poll.',
  })
  import(@CurrentProject() ctx: ProjectContext, @UploadedFile() file?: { buffer: Buffer; originalname?: string }) {
    return this.jobs.queueImport(ctx.project.id, file);
  }

  @Get('import/:jobId')
  @ApiOperation({ summary: 'Poll an import: `{id, state (waiting|active|completed|failed), progress (%), total, processed, result {created, updated, failed}, errors [{row, email, message}]}`' })
  importStatus(@CurrentProject() ctx: ProjectContext, @Param('jobId') jobId: string) {
    return this.jobs.getImport(ctx.project.id, jobId);
  }

  @Post('bulk-subscribe')
  @HttpCode(202)
  @ApiOperation({ summary: 'Subscribe up to 1,000 contacts (queued; returns jobId)' })
  bulkSubscribe(@CurrentProject() ctx: ProjectContext, @Body() body: BulkContactsDto) {
    return this.jobs.queueBulk(ctx.project.id, 'BULK_SUBSCRIBE', body.contactIds);
  }

  @Post('bulk-unsubscribe')
  @HttpCode(202)
  @ApiOperation({ summary: 'Unsubscribe up to 1,000 contacts (queued; returns jobId)' })
  bulkUnsubscribe(@CurrentProject() ctx: ProjectContext, @Body() body: BulkContactsDto) {
    return this.jobs.queueBulk(ctx.project.id, 'BULK_UNSUBSCRIBE', body.contactIds);
  }

  @Post('bulk-delete')
  @HttpCode(202)
  @ApiOperation({ summary: 'Delete up to 1,000 contacts (queued; returns jobId)' })
  bulkDelete(@CurrentProject() ctx: ProjectContext, @Body() body: BulkContactsDto) {
    return this.jobs.queueBulk(ctx.project.id, 'BULK_DELETE', body.contactIds);
  }

  @Get('bulk/:jobId')
  @ApiOperation({ summary: 'Poll a bulk job: result `{requested, updated|deleted, unchanged, notFound}` and per-id errors' })
  bulkStatus(@CurrentProject() ctx: ProjectContext, @Param('jobId') jobId: string) {
    return this.jobs.getBulk(ctx.project.id, jobId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a contact' })
  get(@CurrentProject() ctx: ProjectContext, @Param('id') id: string) {
    return this.contacts.get(ctx.project.id, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update email, subscription state and custom fields' })
  update(@CurrentProject() ctx: ProjectContext, @Param('id') id: string, @Body() body: UpdateContactDto, @RequestId() requestId?: string) {
    return this.contacts.update(ctx.project.id, id, body, requestId);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a contact (and its events)' })
  async delete(@CurrentProject() ctx: ProjectContext, @Param('id') id: string): Promise<void> {
    await this.contacts.delete(ctx.project.id, id);
  }
}
