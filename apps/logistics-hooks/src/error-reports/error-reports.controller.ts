import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AdminAccess } from '../access/admin.guard';
import { ApiKeyAccess } from '../access/api-key.guard';
import { ListErrorsQuery, ReportErrorDto, UpdateErrorDto } from './dto/error-requests.dto';
import { ErrorReportsService } from './error-reports.service';

const uuid = new ParseUUIDPipe({ version: '4' });

@ApiTags('errors')
@Controller('api/errors')
export class ErrorReportsController {
  constructor(private readonly errors: ErrorReportsService) {}

  @Post('report')
  @HttpCode(200)
  @ApiKeyAccess()
  @ApiOperation({
    summary: 'Report an error (API key)',
    description:
      'Deduplicated by fingerprint = SHA-256 of `message`: a new message creates a record (201, `deduplicated: false`, state `open`); a known one ' +
      'increments `occurrences` atomically (200, `deduplicated: true`; a `resolved` record is reopened). Each report is broadcast to the dashboards ' +
      '(Socket.IO namespace `/errors`: `error_created` for a new record, `error_updated` for a repeat).',
  })
  @ApiCreatedResponse({ description: '`{success, deduplicated: false, record}`: a new record' })
  @ApiOkResponse({ description: '`{success, deduplicated: true, record}`: a repeat of a known message' })
  async report(@Body() dto: ReportErrorDto, @Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    const { record, isNew } = await this.errors.report(dto);
    if (isNew) res.status(201);
    return { success: true, deduplicated: !isNew, record };
  }

  @Get()
  @AdminAccess()
  @ApiOperation({ summary: 'List error records (admin JWT)', description: 'Most recently seen first; filters `status`, `severity`, `source`; `limit` (1–200, default 50), `offset`.' })
  @ApiOkResponse({ description: '`{success, errors, total, limit, offset}`' })
  async list(@Query() query: ListErrorsQuery): Promise<Record<string, unknown>> {
    const { errors, total } = await this.errors.list(query);
    return { success: true, errors, total, limit: query.limit ?? 50, offset: query.offset ?? 0 };
  }

  @Get('stats')
  @AdminAccess()
  @ApiOperation({ summary: 'Error statistics (admin JWT)', description: '`total` records, `occurrences` summed, `last_24h` records seen in the last 24 hours, counts `by_status` and `by_severity`, the 5 most frequent (`top`).' })
  @ApiOkResponse({ description: '`{success, total, occurrences, last_24h, by_status, by_severity, top}`' })
  async stats(): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.errors.stats()) };
  }

  @Patch(':id')
  @AdminAccess()
  @ApiOperation({ summary: 'Update an error record (admin JWT)', description: '`status`, `proposed_fix`, `notes`. A refused state move is 409 `INVALID_STATUS_TRANSITION` and changes nothing.' })
  @ApiOkResponse({ description: '`{success, record}`' })
  @ApiNotFoundResponse({ description: '`ERROR_NOT_FOUND`' })
  async update(@Param('id', uuid) id: string, @Body() dto: UpdateErrorDto): Promise<Record<string, unknown>> {
    return { success: true, record: await this.errors.update(id, dto) };
  }

  @Delete(':id')
  @AdminAccess()
  @ApiOperation({ summary: 'Delete an error record (admin JWT)' })
  @ApiOkResponse({ description: '`{success, deleted}`' })
  @ApiNotFoundResponse({ description: '`ERROR_NOT_FOUND`' })
  async delete(@Param('id', uuid) id: string): Promise<Record<string, unknown>> {
    await this.errors.delete(id);
    return { success: true, deleted: id };
  }
}
