import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { AddSuppressionDto, EmailParamDto, ListSuppressionsQueryDto, SuppressionDto, SuppressionPageDto } from './dto/suppressions.dto';
import { SuppressionsService } from './suppressions.service';

@ApiTags('Suppressions')
@ProjectAccess({ session: true })
@Controller('suppressions')
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Get()
  @ApiOperation({
    summary: 'List the suppressed addresses',
    description:
      'Newest first, cursor pagination as GET /contacts (`{data, cursor, hasMore, total}`, `total` on the first page only). Items `{email, reason, source, createdAt}`. ' +
      'A suppressed address gets no mail of the project: marketing mail for every reason, transactional mail for every reason but `unsubscribe` ' +
      '(and with `bypassSuppression` on /v1/send, for hard bounces only). Entries are kept by address: deleting or re-importing the contact does not remove them.',
  })
  @ApiOkResponse({ type: SuppressionPageDto })
  @ApiErrors(PARAM_ERRORS, { 400: '`INVALID_CURSOR`: the cursor is not one this list returned' })
  list(@CurrentProject() ctx: ProjectContext, @Query() query: ListSuppressionsQueryDto) {
    return this.suppressions.list(ctx.project.id, query);
  }

  @Post()
  @ApiOperation({ summary: 'Suppress an address', description: 'Body `{email, reason?}` (reason default `manual`, source `api`). An address already on the list keeps its entry (answered as it is).' })
  @ApiCreatedResponse({ type: SuppressionDto })
  @ApiErrors(JSON_BODY_ERRORS)
  add(@CurrentProject() ctx: ProjectContext, @Body() body: AddSuppressionDto) {
    return this.suppressions.add(ctx.project.id, body.email, body.reason);
  }

  @Delete(':email')
  @HttpCode(204)
  @ApiOperation({ summary: 'Take an address off the list', description: 'The project may mail it again (URL-encode the address).' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(PARAM_ERRORS, { 404: '`SUPPRESSION_NOT_FOUND`: the address is not on the list' })
  async remove(@CurrentProject() ctx: ProjectContext, @Param() params: EmailParamDto): Promise<void> {
    await this.suppressions.remove(ctx.project.id, params.email);
  }
}
