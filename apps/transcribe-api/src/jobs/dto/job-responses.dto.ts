import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { TranscriptionResultDto } from '../../transcription/dto/transcription-result.dto';
import { ENGINES, JOB_STATUSES, TASKS, type EngineName, type JobStatus, type TranscriptionTask } from '../../transcription/job-record';

export class JobProgressDto {
  @ApiProperty({ description: 'seconds since a worker started the job' }) elapsed_seconds: number;
  @ApiProperty({ nullable: true, type: Number, description: 'seconds of audio, from the file\'s header (WAV, FLAC, MP3, MP4/M4A; null for others)' }) audio_seconds: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'engine seconds per audio second, measured over the queue\'s last 20 finished jobs' }) real_time_factor: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'audio_seconds × real_time_factor' }) estimated_total_seconds: number | null;
  @ApiProperty({ nullable: true, type: Number }) estimated_remaining_seconds: number | null;
  @ApiProperty({ nullable: true, type: Number, description: '0–99 (never 100 before the engine answers)' }) percent: number | null;
}

export class JobStatusDto {
  @ApiProperty({ format: 'uuid' }) job_id: string;
  @ApiProperty({ enum: JOB_STATUSES, description: 'queued → started → finished | failed; cancelled after DELETE /transcribe/jobs/{id}' }) status: JobStatus;
  @ApiProperty({ description: 'what the status means and what to do next' }) message: string;
  @ApiProperty({ enum: ENGINES }) engine: EngineName;
  @ApiProperty({ example: 'faster-whisper-transcription' }) queue_name: string;
  @ApiProperty({ nullable: true, type: String, description: 'requested language, then the detected one once finished' }) language: string | null;
  @ApiProperty({ enum: TASKS }) task: TranscriptionTask;
  @ApiProperty() filename: string;
  @ApiProperty({ description: 'bytes' }) file_size: number;
  @ApiProperty({ example: 'audio/wav' }) media_type: string;
  @ApiProperty({ nullable: true, type: Number, description: 'seconds of audio, once finished' }) audio_duration: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'while queued: waiting jobs ahead of it (0 = next)' }) queue_position: number | null;
  @ApiProperty({ description: 'times a worker started the job (2 after a worker died mid-job and another took over)' }) attempts: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) started_at: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'when it finished or failed' }) ended_at: string | null;
  @ApiPropertyOptional({ type: TranscriptionResultDto, nullable: true, description: 'when finished' }) result: TranscriptionResultDto | null;
  @ApiProperty({ nullable: true, type: String, description: 'when failed: why' }) error: string | null;
  @ApiProperty({ nullable: true, type: JobProgressDto, description: 'while started: elapsed time and the estimate' }) progress: JobProgressDto | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'when the record and its result are removed: TRANSCRIBE_RESULT_TTL_SECONDS after the end, or TRANSCRIBE_READ_RESULT_TTL_SECONDS after the first read when sooner',
  })
  expires_at: string | null;
}

export class JobSummaryDto extends OmitType(JobStatusDto, ['result'] as const) {}

export class JobListDto {
  @ApiProperty({ type: [JobSummaryDto], description: 'newest first; records without their result' }) jobs: JobSummaryDto[];
  @ApiProperty({ description: 'jobs matching the filters' }) total: number;
  @ApiProperty() page: number;
  @ApiProperty() limit: number;
}

export class CancelJobDto {
  @ApiProperty({ format: 'uuid' }) job_id: string;
  @ApiProperty({ enum: ['cancelled', 'deleted'], description: '`cancelled`: a queued or running job stopped; `deleted`: an ended job\'s record removed' }) status: 'cancelled' | 'deleted';
  @ApiProperty() message: string;
}
