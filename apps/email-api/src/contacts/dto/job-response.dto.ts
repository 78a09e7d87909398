import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { idPattern } from '../../common/ids';

const JOB_ID = { pattern: idPattern('job'), example: 'job_0a1b2c3d4e5f6g7h8i9j' };
const JOB_STATES = ['waiting', 'active', 'completed', 'failed'] as const;

/** 202 of an import or bulk request. */
export class JobQueuedDto {
  @ApiProperty({ ...JOB_ID, description: 'Poll it with GET /contacts/import/{jobId} or GET /contacts/bulk/{jobId}' })
  jobId: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'CSV data rows (without the header), or distinct contact ids' })
  total: number;

  @ApiProperty({ example: 'Import queued; poll GET /contacts/import/:jobId' })
  message: string;
}

/** The fields every job poll shares (`toJobView`). */
abstract class JobDto {
  @ApiProperty(JOB_ID)
  id: string;

  @ApiProperty({ enum: JOB_STATES, description: 'waiting → active → completed, or failed (`failedReason`)' })
  state: (typeof JOB_STATES)[number];

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100, description: 'Percent of the rows processed (100 once completed)' })
  progress: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  processed: number;

  @ApiProperty({ type: String, nullable: true, description: 'Why the job failed for good' })
  failedReason: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  startedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finishedAt: string | null;
}

class ImportResultDto {
  @ApiProperty({ type: 'integer', minimum: 0 }) created: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) updated: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Rows refused (listed in `errors`)' }) failed: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Data rows of the file; present once completed' }) total?: number;
}

class ImportRowErrorDto {
  @ApiProperty({ type: 'integer', minimum: 2, description: 'Line of the CSV (the header is line 1)' })
  row: number;

  @ApiProperty({ description: 'The email cell as written (may be empty or invalid)' })
  email: string;

  @ApiProperty({ example: 'invalid email address' })
  message: string;
}

export class ImportJobDto extends JobDto {
  @ApiProperty({ enum: ['IMPORT'] })
  type: 'IMPORT';

  @ApiProperty({ type: ImportResultDto, nullable: true, description: 'Counts so far; null before the first batch' })
  result: ImportResultDto | null;

  @ApiProperty({ type: [ImportRowErrorDto], description: 'Refused rows (storing stops once about 1000 are kept; `result.failed` counts them all)' })
  errors: ImportRowErrorDto[];
}

class BulkResultDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Distinct ids sent' })
  requested: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'BULK_SUBSCRIBE, BULK_UNSUBSCRIBE: contacts whose state changed' })
  updated?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'BULK_DELETE: contacts deleted' })
  deleted?: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Found but already in the requested state' })
  unchanged: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Ids that are no contact of the project' })
  notFound: number;
}

class BulkIdErrorDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Position in `contactIds` (from 1)' })
  row: number;

  @ApiProperty({ pattern: '^cnt_[0-9a-z]{1,64}$', example: 'cnt_0a1b2c3d4e5f6g7h8i9j', description: 'The id as sent' })
  id: string;

  @ApiProperty({ example: 'contact not found in this project' })
  message: string;
}

export class BulkJobDto extends JobDto {
  @ApiProperty({ enum: ['BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'] })
  type: 'BULK_SUBSCRIBE' | 'BULK_UNSUBSCRIBE' | 'BULK_DELETE';

  @ApiProperty({ type: BulkResultDto, nullable: true, description: 'Null until the job completes' })
  result: BulkResultDto | null;

  @ApiProperty({ type: [BulkIdErrorDto], description: 'Ids that were not found' })
  errors: BulkIdErrorDto[];
}
