import { Controller, Delete, Get, Param, Query, Res } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiServiceUnavailableResponse, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorDto } from '../errors/detail-error.dto';
import { sendRendered } from '../formats/send-rendered';
import { CancelJobDto, JobListDto, JobStatusDto } from './dto/job-responses.dto';
import { ListJobsQueryDto, StatusQueryDto } from './dto/jobs-query.dto';
import { JobsService, type CancelAnswer, type JobList } from './jobs.service';

@ApiTags('jobs')
@Controller()
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get('transcribe/status/:job_id')
  @ApiOperation({
    summary: 'Status of a queued job',
    description:
      'Status moves queued → started → finished | failed (cancelled after DELETE). While queued the record gives `queue_position`; while started, `progress` (elapsed time, and an estimate from the audio\'s duration read from its header and the queue\'s measured real-time factor). With `output` (json, verbose_json, text/txt, srt, vtt, tsv) a finished job answers its result alone in that format (409 before it finished). Records are removed TRANSCRIBE_RESULT_TTL_SECONDS (default 3600) after the job ended, or TRANSCRIBE_READ_RESULT_TTL_SECONDS (default 600) after an ended job was first read when that is sooner (`expires_at`); then 404.',
  })
  @ApiProduces('application/json', 'text/plain', 'text/vtt', 'application/x-subrip', 'text/tab-separated-values')
  @ApiOkResponse({ type: JobStatusDto })
  @ApiNotFoundResponse({ type: ErrorDto, description: 'unknown job id, or its record expired' })
  @ApiConflictResponse({ type: ErrorDto, description: '`output` asked of a job that has not finished' })
  @ApiUnprocessableEntityResponse({ type: ErrorDto, description: 'unknown `output`' })
  async status(@Param('job_id') jobId: string, @Query() query: StatusQueryDto, @Res({ passthrough: true }) res: Response): Promise<object | string> {
    const answer = await this.jobs.status(jobId, query.output ?? query.response_format);
    return 'record' in answer ? answer.record : sendRendered(res, answer.rendered);
  }

  @Get('transcribe/jobs')
  @ApiOperation({
    summary: 'List jobs',
    description:
      'Jobs of both queues (or `engine`\'s), newest first, filtered by `status`, `page` (from 1) by `limit` (1–100, default 20); records without their result (read it with GET /transcribe/status/{job_id}). Only jobs still kept are listed (see the retention of GET /transcribe/status).',
  })
  @ApiOkResponse({ type: JobListDto })
  @ApiUnprocessableEntityResponse({ type: ErrorDto, description: 'invalid status, engine, page or limit' })
  @ApiServiceUnavailableResponse({ type: ErrorDto, description: 'Redis is unreachable' })
  list(@Query() query: ListJobsQueryDto): Promise<JobList> {
    return this.jobs.list(query);
  }

  @Delete('transcribe/jobs/:job_id')
  @ApiOperation({
    summary: 'Cancel a job, or delete an ended one',
    description:
      'A queued job leaves the queue; a running one is stopped: the worker running it (in any process) aborts its engine request. Either way its upload is removed and its record says `cancelled` until it expires. An ended job (finished, failed, cancelled) has its record and result deleted at once (then 404).',
  })
  @ApiOkResponse({ type: CancelJobDto })
  @ApiNotFoundResponse({ type: ErrorDto, description: 'unknown job id, or its record expired' })
  @ApiServiceUnavailableResponse({ type: ErrorDto, description: 'Redis is unreachable' })
  cancel(@Param('job_id') jobId: string): Promise<CancelAnswer> {
    return this.jobs.cancel(jobId);
  }
}
