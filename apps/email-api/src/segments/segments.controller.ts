import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import type { Response } from 'express';
import { uuidPipe } from '../common/uuid.pipe';
import {
  ComputeJobDto,
  ComputeQueuedDto,
  ComputeResultDto,
  CreateSegmentDto,
  MembersAddedDto,
  MembersRemovedDto,
  RemoveMembersDto,
  SegmentContactsPageDto,
  SegmentDto,
  SegmentMembersDto,
  SegmentPageQueryDto,
  UpdateSegmentDto,
} from './dto/segments.dto';
import { SegmentsService } from './segments.service';

const NOT_FOUND = { 404: '`SEGMENT_NOT_FOUND`: no segment with this id in the project' };
const CONDITION = { 400: '`INVALID_CONDITION`: the condition breaks its rules (unknown field or operator, missing unit, a cycle of segments, an unknown segment); `STATIC_SEGMENT_CONDITION`: a condition on a STATIC segment' };
const SegmentId = () => Param('id', uuidPipe('SEGMENT_NOT_FOUND', 'Segment'));

@ApiTags('Segments')
@ProjectAccess({ session: true })
@Controller('segments')
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Get()
  @ApiOperation({ summary: 'Every segment of the project (no pagination), newest first' })
  @ApiOkResponse({ type: [SegmentDto] })
  list(@CurrentProject() ctx: ProjectContext) {
    return this.segments.list(ctx.project.id);
  }

  @Post()
  @ApiOperation({ summary: 'Create a segment', description: 'DYNAMIC requires `condition` (compiled to one SQL query), STATIC refuses it. The answer carries the member count.' })
  @ApiCreatedResponse({ type: SegmentDto })
  @ApiErrors(JSON_BODY_ERRORS, CONDITION)
  create(@CurrentProject() ctx: ProjectContext, @Body() body: CreateSegmentDto) {
    return this.segments.create(ctx.project.id, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One segment with its cached `memberCount`' })
  @ApiOkResponse({ type: SegmentDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  get(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string) {
    return this.segments.get(ctx.project.id, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update name, description, condition (DYNAMIC only) or trackMembership' })
  @ApiOkResponse({ type: SegmentDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, CONDITION)
  update(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string, @Body() body: UpdateSegmentDto) {
    return this.segments.update(ctx.project.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a segment', description: '409 while a DRAFT, SCHEDULED or SENDING campaign sends to it, or another segment\'s condition references it.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 409: '`SEGMENT_IN_USE`: a draft, scheduled or sending campaign uses the segment, or another segment references it' })
  async remove(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string) {
    await this.segments.remove(ctx.project.id, id);
  }

  @Get(':id/contacts')
  @ApiOperation({ summary: 'Contacts of the segment, page-based', description: '`{data, total, page, pageSize, totalPages}`; `pageSize` at most 100. Live for dynamic segments (evaluated now, not the cached membership).' })
  @ApiOkResponse({ type: SegmentContactsPageDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  contacts(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string, @Query() query: SegmentPageQueryDto) {
    return this.segments.contactsPage(ctx.project.id, id, query.page, query.pageSize);
  }

  @Post(':id/members')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add emails to a STATIC segment', description: 'Up to 500 emails; `createMissing` creates contacts (subscribed unless `subscribed: false`). Answers `{added, created, notFound}`.' })
  @ApiOkResponse({ type: MembersAddedDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, { 400: '`NOT_STATIC_SEGMENT`: the segment is DYNAMIC' })
  addMembers(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string, @Body() body: SegmentMembersDto) {
    return this.segments.addMembers(ctx.project.id, id, body.emails, body.createMissing ?? false, body.subscribed);
  }

  @Delete(':id/members')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove emails from a STATIC segment', description: 'Body `{emails}` (up to 500). Answers `{removed, notFound}`.' })
  @ApiOkResponse({ type: MembersRemovedDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, { 400: '`NOT_STATIC_SEGMENT`: the segment is DYNAMIC' })
  removeMembers(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string, @Body() body: RemoveMembersDto) {
    return this.segments.removeMembers(ctx.project.id, id, body.emails);
  }

  @Post(':id/refresh')
  @HttpCode(200)
  @ApiOperation({ summary: 'Recount the members', description: 'Updates the cached `memberCount` only: no events, no membership writes.' })
  @ApiOkResponse({ type: SegmentDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  refresh(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string) {
    return this.segments.refresh(ctx.project.id, id);
  }

  @Post(':id/compute')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Recompute a tracked dynamic segment',
    description:
      'Diffs the membership in batches of 1000 contacts, each batch one transaction; each entering contact gets a `segment.<slug>.entry` event and each leaving one `segment.<slug>.exit` (data `{segmentId, segmentName}`), and each event is published on the bus as `email.event_tracked` through the outbox (committed with it). ' +
      'A project with up to SEGMENT_COMPUTE_INLINE_MAX contacts (default 10,000) is computed in the request: 200 `{added, removed, total}`. A larger one is queued as a job: 202 `{jobId, total, message}`; poll `GET /segments/{id}/compute/{jobId}` (a crashed worker\'s job resumes after its last committed batch).',
  })
  @ApiOkResponse({ type: ComputeResultDto })
  @ApiAcceptedResponse({ type: ComputeQueuedDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 400: '`SEGMENT_NOT_TRACKED`: not a DYNAMIC segment with trackMembership' })
  async compute(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string, @Res({ passthrough: true }) res: Response) {
    const outcome = await this.segments.compute(ctx.project.id, id);
    if ('jobId' in outcome) res.status(202);
    return outcome;
  }

  @Get(':id/compute/:jobId')
  @ApiOperation({ summary: 'Poll a queued recompute: `{id, type, state, progress, total, processed, result {added, removed, total?}, failedReason, …}`' })
  @ApiOkResponse({ type: ComputeJobDto })
  @ApiErrors(PARAM_ERRORS, { 404: '`SEGMENT_NOT_FOUND`; `JOB_NOT_FOUND`: no recompute job with this id for this segment in the project' })
  computeJob(@CurrentProject() ctx: ProjectContext, @SegmentId() id: string, @Param('jobId') jobId: string) {
    return this.segments.computeJob(ctx.project.id, id, jobId);
  }
}
