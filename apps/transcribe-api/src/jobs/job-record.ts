/**
 * The job model shared by both queue adapters (BullMQ on Redis, in-process) and the HTTP layer.
 * Pure: no I/O here, so the status record's rules are tested by fast unit tests.
 */

/** The two engines and their queues, as the spec names them. */
export const ENGINES = ['whisper', 'faster-whisper'] as const;
export type EngineName = (typeof ENGINES)[number];

/** The engine used when a request names none: the faster one, as in the origin setup. */
export const DEFAULT_ENGINE: EngineName = 'faster-whisper';

export interface QueueSpec {
  engine: EngineName;
  /** queue name, as the spec gives it */
  queueName: string;
  /** Redis logical database the queue lives in */
  redisDb: number;
  /** seconds one job takes when no history exists yet (origin: 5 min of audio on CPU) */
  defaultJobSeconds: number;
}

export const QUEUES: Record<EngineName, QueueSpec> = {
  whisper: { engine: 'whisper', queueName: 'transcription', redisDb: 0, defaultJobSeconds: 180 },
  'faster-whisper': {
    engine: 'faster-whisper',
    queueName: 'faster-whisper-transcription',
    redisDb: 1,
    defaultJobSeconds: 45,
  },
};

export type JobStatus = 'queued' | 'started' | 'finished' | 'failed';

/** What the engine does: write down the speech (`transcribe`), or write it in English (`translate`). */
export const TASKS = ['transcribe', 'translate'] as const;
export type TranscriptionTask = (typeof TASKS)[number];
export const DEFAULT_TASK: TranscriptionTask = 'transcribe';

export interface TranscriptionSegment {
  id: number;
  start: number;
  end: number;
  text: string;
}

/** What a transcription produced; the body of `POST /transcribe` and `result` of a finished job. */
export interface TranscriptionResult {
  text: string;
  language: string | null;
  /** audio duration in seconds, as the engine measured it */
  duration: number | null;
  segments: TranscriptionSegment[];
  engine: EngineName;
  model: string;
  /** seconds spent in the engine */
  processing_time: number;
  metadata: {
    filename: string;
    file_size: number;
    media_type: string;
    processing_time: number;
    language: string | null;
    task: TranscriptionTask;
    service: EngineName;
  };
}

/** What is stored with a job when it is enqueued (BullMQ job data). */
export interface JobInput {
  job_id: string;
  engine: EngineName;
  /** ISO 639-1 code, or null to let the engine detect it */
  language: string | null;
  /** absent on jobs queued before the field existed: `transcribe` */
  task?: TranscriptionTask;
  filename: string;
  file_size: number;
  media_type: string;
  /** where the upload waits on disk; removed when the job ends */
  file_path: string;
  created_at: string;
  /** X-Request-Id of the submitting request: the correlation id of the job's logs and event */
  request_id?: string;
}

/** The adapter-neutral facts about one job, from which the public record is derived. */
export interface JobSnapshot {
  input: JobInput;
  status: JobStatus;
  startedAt: Date | null;
  endedAt: Date | null;
  result: TranscriptionResult | null;
  error: string | null;
  /** waiting jobs ahead of it in its queue (0 = next), null unless queued */
  position: number | null;
  /** how many times a worker started it (a worker that died mid-job makes it 2) */
  attempts: number;
}

/** The status record served by `GET /transcribe/status/{job_id}`. */
export interface JobRecord {
  job_id: string;
  status: JobStatus;
  message: string;
  engine: EngineName;
  queue_name: string;
  language: string | null;
  task: TranscriptionTask;
  filename: string;
  file_size: number;
  media_type: string;
  audio_duration: number | null;
  queue_position: number | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  result: TranscriptionResult | null;
  error: string | null;
}

export function statusMessage(s: Pick<JobSnapshot, 'status' | 'position' | 'error'> & { engine: EngineName }): string {
  const queue = QUEUES[s.engine].queueName;
  switch (s.status) {
    case 'queued':
      return s.position !== null
        ? `Waiting in queue ${queue} behind ${s.position} job(s); poll this URL until status is finished or failed.`
        : `Waiting in queue ${queue}; poll this URL until status is finished or failed.`;
    case 'started':
      return `Transcribing with engine ${s.engine}; poll this URL until status is finished or failed.`;
    case 'finished':
      return 'Transcription finished; the text and segments are in result.';
    case 'failed':
      return `Transcription failed: ${s.error ?? 'unknown error'}. Fix the cause and submit the file again.`;
  }
}

export function toJobRecord(s: JobSnapshot): JobRecord {
  return {
    job_id: s.input.job_id,
    status: s.status,
    message: statusMessage({ status: s.status, position: s.position, error: s.error, engine: s.input.engine }),
    engine: s.input.engine,
    queue_name: QUEUES[s.input.engine].queueName,
    language: s.result?.language ?? s.input.language,
    task: s.input.task ?? DEFAULT_TASK,
    filename: s.input.filename,
    file_size: s.input.file_size,
    media_type: s.input.media_type,
    audio_duration: s.result?.duration ?? null,
    queue_position: s.status === 'queued' ? s.position : null,
    attempts: s.attempts,
    created_at: s.input.created_at,
    started_at: s.startedAt ? s.startedAt.toISOString() : null,
    ended_at: s.endedAt ? s.endedAt.toISOString() : null,
    result: s.status === 'finished' ? s.result : null,
    error: s.status === 'failed' ? s.error : null,
  };
}

/** Counters of one queue, the shape of `GET /queue/stats` (the origin's RQ fields). */
export interface QueueStats {
  queue_name: string;
  engine: EngineName;
  queued: number;
  started: number;
  finished: number;
  failed: number;
  workers: number;
}

/**
 * Seconds until a job with `ahead` waiting jobs in front of it starts. The `running` jobs and the
 * ones ahead hold the workers' slots first; each of the `workers` slots frees up after one job of
 * the recent average time (or the engine's default when nothing has finished yet). With no worker
 * running the wait is unknown: it is computed as if one were.
 */
export function estimateWaitSeconds(ahead: number, running: number, workers: number, averageJobSeconds: number | null, spec: QueueSpec): number {
  const perJob = averageJobSeconds ?? spec.defaultJobSeconds;
  const slots = Math.max(1, workers);
  const mustFinish = Math.max(0, ahead + running - slots + 1); // jobs that end before a slot is ours
  return Math.round(Math.ceil(mustFinish / slots) * perJob);
}

export function isEngineName(value: unknown): value is EngineName {
  return typeof value === 'string' && (ENGINES as readonly string[]).includes(value);
}
