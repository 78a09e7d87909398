import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { RequestId } from '../common/request-id.decorator';
import { ContactJobsService } from './contact-jobs.service';
import { ContactsService } from './contacts.service';
import {
  ContactDto,
  ContactFieldsDto,
  ContactLookupDto,
  ContactPageDto,
  FieldDeletedDto,
  FieldUsageDto,
  FieldValuesDto,
  UpsertedContactDto,
} from './dto/contact-response.dto';
import { BulkJobDto, ImportJobDto, JobQueuedDto } from './dto/job-response.dto';
import { BulkContactsDto, FieldValuesQueryDto, ListContactsQueryDto, LookupContactsDto, UpdateContactDto, UpsertContactDto } from './dto/contacts.dto';

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

const CONTACT_NOT_FOUND = { 404: '`CONTACT_NOT_FOUND`: no contact with this id in the project' };
const JOB_NOT_FOUND = { 404: '`JOB_NOT_FOUND`: no job of this kind with this id in the project' };
const STANDARD_FIELD = { 400: '`STANDARD_FIELD`: `email`, `subscribed`, `createdAt`, `updatedAt` are standard fields, not custom ones' };
const DATA_KEYS = { 422: '`VALIDATION_ERROR`: a `data` key is reserved (`id`, `email`, `subscribed`, `createdAt`, `updatedAt`, `data`: code `reserved_key`) or longer than 100 characters' };

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
  @ApiOkResponse({ type: ContactPageDto })
  @ApiErrors(PARAM_ERRORS, { 400: '`INVALID_CURSOR`: the cursor is not one this list returned' })
  list(@CurrentProject() ctx: ProjectContext, @Query() query: ListContactsQueryDto) {
    return this.contacts.list(ctx.project.id, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create or update a contact by email',
    description:
      '201 when created, 200 when updated; `_meta.isNew` / `_meta.isUpdate` tell which. With double opt-in on, a new contact (unless `subscribed: false`) or `subscribed: true` for an unsubscribed one ' +
      'gives `subscribed: false, optIn: pending` and a confirmation mail (at most one a day); the secret key cannot skip it except with `confirmed: true` (an attested consent).',
  })
  @ApiCreatedResponse({ type: UpsertedContactDto, description: 'Created (`_meta.isNew` true)' })
  @ApiOkResponse({ type: UpsertedContactDto, description: 'Updated (`_meta.isUpdate` true)' })
  @ApiErrors(JSON_BODY_ERRORS, DATA_KEYS)
  async upsert(@CurrentProject() ctx: ProjectContext, @Body() body: UpsertContactDto, @Res({ passthrough: true }) res: Response, @RequestId() requestId?: string) {
    const { contact, isNew } = await this.contacts.upsert(ctx.project.id, body, requestId);
    res.status(isNew ? 201 : 200);
    return { ...contact, _meta: { isNew, isUpdate: !isNew } };
  }

  @Post('lookup')
  @HttpCode(200)
  @ApiOperation({ summary: 'Which of up to 500 emails exist', description: 'Returns `{found: [{id, email, subscribed}], notFound: [email]}`.' })
  @ApiOkResponse({ type: ContactLookupDto })
  @ApiErrors(JSON_BODY_ERRORS)
  lookup(@CurrentProject() ctx: ProjectContext, @Body() body: LookupContactsDto) {
    return this.contacts.lookup(ctx.project.id, body.emails);
  }

  @Get('fields')
  @ApiOperation({ summary: 'Standard and custom fields with inferred types and coverage (percent of contacts holding the field)' })
  @ApiOkResponse({ type: ContactFieldsDto })
  fields(@CurrentProject() ctx: ProjectContext) {
    return this.contacts.fields(ctx.project.id);
  }

  @Get('fields/:field/values')
  @ApiOperation({ summary: 'Distinct values of a custom field with their counts (most frequent first, default 100)' })
  @ApiOkResponse({ type: FieldValuesDto })
  @ApiErrors(PARAM_ERRORS, STANDARD_FIELD)
  fieldValues(@CurrentProject() ctx: ProjectContext, @Param('field') field: string, @Query() query: FieldValuesQueryDto) {
    return this.contacts.fieldValues(ctx.project.id, field, query.limit ?? 100);
  }

  @Get('fields/:field/usage')
  @ApiOperation({ summary: 'Where a custom field is used: contacts holding it, and the segments, templates and campaigns referencing it (and where)' })
  @ApiOkResponse({ type: FieldUsageDto })
  @ApiErrors(PARAM_ERRORS, STANDARD_FIELD)
  fieldUsage(@CurrentProject() ctx: ProjectContext, @Param('field') field: string) {
    return this.contacts.fieldUsage(ctx.project.id, field);
  }

  @Delete('fields/:field')
  @ApiOperation({ summary: 'Remove a custom field from every contact' })
  @ApiOkResponse({ type: FieldDeletedDto, description: 'Also 200 when no contact held the field (`contactsUpdated: 0`)' })
  @ApiErrors(PARAM_ERRORS, STANDARD_FIELD)
  deleteField(@CurrentProject() ctx: ProjectContext, @Param('field') field: string) {
    return this.contacts.deleteField(ctx.project.id, field);
  }

  @Post('import')
  @HttpCode(202)
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_IMPORT_BYTES, files: 1 } }))
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    description: 'One CSV file in the field `file`, at most 5 MB',
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description: `UTF-8 CSV, at most 5 MB (${MAX_IMPORT_BYTES} bytes; larger: 413); one file. Header row first: \`email\` (required), \`subscribed\` (optional: true/false/yes/no/1/0), other columns become custom fields`,
        },
      },
    },
  })
  @ApiOperation({
    summary: 'Import contacts from CSV (queued)',
    description:
      'Multipart field `file`, at most 5 MB (413 above). First row: column names; `email` required, `subscribed` (true/false/yes/no/1/0) optional, every other column becomes a custom field (string). ' +
      'New contacts are subscribed unless the row says otherwise; existing ones are updated. With double opt-in on, new contacts (and `subscribed` true for unsubscribed ones) become `optIn: pending` with a confirmation mail each instead. ' +
      'Answers 202 `{jobId, total, message}`; bad rows are reported per row by the poll.',
  })
  @ApiAcceptedResponse({ type: JobQueuedDto, description: 'Queued: `{jobId, total, message}`; `total` counts the data rows' })
  @ApiErrors({
    400: '`INVALID_CSV`: not a text CSV (NUL bytes) or broken quoting; `BAD_REQUEST`: a multipart field other than `file`, more than one file, or a malformed multipart body',
    413: '`PAYLOAD_TOO_LARGE`: the file is larger than 5 MB',
    422: '`VALIDATION_ERROR`: no file or an empty one (`errors[0].field` = `file`, code `required` or `too_small`), or the header row has no `email` column (code `missing_column`)',
  })
  import(@CurrentProject() ctx: ProjectContext, @UploadedFile() file?: { buffer: Buffer; originalname?: string }) {
    return this.jobs.queueImport(ctx.project.id, file);
  }

  @Get('import/:jobId')
  @ApiOperation({ summary: 'Poll an import: `{id, state (waiting|active|completed|failed), progress (%), total, processed, result {created, updated, failed}, errors [{row, email, message}]}`' })
  @ApiOkResponse({ type: ImportJobDto })
  @ApiErrors(PARAM_ERRORS, JOB_NOT_FOUND)
  importStatus(@CurrentProject() ctx: ProjectContext, @Param('jobId') jobId: string) {
    return this.jobs.getImport(ctx.project.id, jobId);
  }

  @Post('bulk-subscribe')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Subscribe up to 1,000 contacts (queued; returns jobId)',
    description: 'With double opt-in on, unsubscribed contacts become `optIn: pending` and get a confirmation mail (at most one a day) instead; `updated` counts only contacts subscribed at once.',
  })
  @ApiAcceptedResponse({ type: JobQueuedDto })
  @ApiErrors(JSON_BODY_ERRORS)
  bulkSubscribe(@CurrentProject() ctx: ProjectContext, @Body() body: BulkContactsDto) {
    return this.jobs.queueBulk(ctx.project.id, 'BULK_SUBSCRIBE', body.contactIds);
  }

  @Post('bulk-unsubscribe')
  @HttpCode(202)
  @ApiOperation({ summary: 'Unsubscribe up to 1,000 contacts (queued; returns jobId)' })
  @ApiAcceptedResponse({ type: JobQueuedDto })
  @ApiErrors(JSON_BODY_ERRORS)
  bulkUnsubscribe(@CurrentProject() ctx: ProjectContext, @Body() body: BulkContactsDto) {
    return this.jobs.queueBulk(ctx.project.id, 'BULK_UNSUBSCRIBE', body.contactIds);
  }

  @Post('bulk-delete')
  @HttpCode(202)
  @ApiOperation({ summary: 'Delete up to 1,000 contacts (queued; returns jobId)' })
  @ApiAcceptedResponse({ type: JobQueuedDto })
  @ApiErrors(JSON_BODY_ERRORS)
  bulkDelete(@CurrentProject() ctx: ProjectContext, @Body() body: BulkContactsDto) {
    return this.jobs.queueBulk(ctx.project.id, 'BULK_DELETE', body.contactIds);
  }

  @Get('bulk/:jobId')
  @ApiOperation({ summary: 'Poll a bulk job: result `{requested, updated|deleted, unchanged, notFound}` and per-id errors' })
  @ApiOkResponse({ type: BulkJobDto })
  @ApiErrors(PARAM_ERRORS, JOB_NOT_FOUND)
  bulkStatus(@CurrentProject() ctx: ProjectContext, @Param('jobId') jobId: string) {
    return this.jobs.getBulk(ctx.project.id, jobId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a contact' })
  @ApiOkResponse({ type: ContactDto })
  @ApiErrors(PARAM_ERRORS, CONTACT_NOT_FOUND)
  get(@CurrentProject() ctx: ProjectContext, @Param('id') id: string) {
    return this.contacts.get(ctx.project.id, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update email, subscription state and custom fields',
    description: 'With double opt-in on, `subscribed: true` for an unsubscribed contact makes it `optIn: pending` with a confirmation mail (at most one a day) instead of subscribing it; `subscribed: false` also ends a pending opt-in.',
  })
  @ApiOkResponse({ type: ContactDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, DATA_KEYS, CONTACT_NOT_FOUND, { 409: '`CONTACT_EMAIL_TAKEN`: another contact of the project has this email' })
  update(@CurrentProject() ctx: ProjectContext, @Param('id') id: string, @Body() body: UpdateContactDto, @RequestId() requestId?: string) {
    return this.contacts.update(ctx.project.id, id, body, requestId);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a contact (and its events)' })
  @ApiNoContentResponse({ description: 'Deleted with its events' })
  @ApiErrors(PARAM_ERRORS, CONTACT_NOT_FOUND)
  async delete(@CurrentProject() ctx: ProjectContext, @Param('id') id: string): Promise<void> {
    await this.contacts.delete(ctx.project.id, id);
  }
}
