import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { OUTPUT_FORMAT_VALUES } from '../../formats/transcript-output';
import { toInteger, trimmed } from '../../validation/transforms';
import { ENGINES, JOB_STATUSES, type EngineName, type JobStatus } from '../../transcription/job-record';


/** `GET /transcribe/jobs` query. */
export class ListJobsQueryDto {
  @ApiPropertyOptional({ enum: JOB_STATUSES, description: 'Only jobs with this status.' })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(JOB_STATUSES, { message: `status must be one of: ${JOB_STATUSES.join(', ')}` })
  status?: JobStatus;

  @ApiPropertyOptional({ enum: ENGINES, description: 'Only jobs of this engine (queue).' })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(ENGINES, { message: `engine must be one of: ${ENGINES.join(', ')}` })
  engine?: EngineName;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'page must be a whole number from 1' })
  @Min(1, { message: 'page must be a whole number from 1' })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be a whole number from 1 to 100' })
  @Min(1, { message: 'limit must be a whole number from 1 to 100' })
  @Max(100, { message: 'limit must be a whole number from 1 to 100' })
  limit?: number;
}

/** `GET /transcribe/status/{job_id}` query. */
export class StatusQueryDto {
  @ApiPropertyOptional({
    enum: OUTPUT_FORMAT_VALUES,
    description: 'Without it: the job record (JSON, `result` in the `json` shape). With it, for a finished job: the result alone in that format (409 while the job has not finished).',
  })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(OUTPUT_FORMAT_VALUES, { message: `output must be one of: ${OUTPUT_FORMAT_VALUES.join(', ')}` })
  output?: string;

  @ApiPropertyOptional({ enum: OUTPUT_FORMAT_VALUES, description: 'Same as `output`.' })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(OUTPUT_FORMAT_VALUES, { message: `response_format must be one of: ${OUTPUT_FORMAT_VALUES.join(', ')}` })
  response_format?: string;
}
