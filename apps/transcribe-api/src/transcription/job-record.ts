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

export const JOB_STATUSES = ['queued', 'started', 'finished', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Why a job's signal was aborted when a client cancelled it (DELETE /transcribe/jobs/{id}). */
export const CANCELLED = 'cancelled';
/** The failure reason a cancelled running job ends with (its status is `cancelled`). */
export const CANCELLED_REASON = 'cancelled by DELETE /transcribe/jobs/{id}';

/** What the engine does: write down the speech (`transcribe`), or write it in English (`translate`). */
export const TASKS = ['transcribe', 'translate'] as const;
export type TranscriptionTask = (typeof TASKS)[number];
export const DEFAULT_TASK: TranscriptionTask = 'transcribe';

/** One word with its timing (engines give it with word timestamps; WhisperX adds `score` and `speaker`). */
export interface TranscriptionWord {
  word: string;
  start: number;
  end: number;
  /** recognition probability (OpenAI/faster-whisper `probability`, WhisperX `score`) */
  probability?: number;
  speaker?: string;
}

/**
 * One segment as the engine gave it. `id`, `start`, `end`, `text` are always there (the `json`
 * output shows only them, plus `speaker` when diarized); the rest is kept for `verbose_json`.
 */
export interface TranscriptionSegment {
  id: number;
  start: number;
  end: number;
  text: string;
  /** diarization label of the engine (`SPEAKER_00`), when it diarized */
  speaker?: string;
  seek?: number;
  tokens?: number[];
  temperature?: number;
  avg_logprob?: number;
  compression_ratio?: number;
  no_speech_prob?: number;
  words?: TranscriptionWord[];
}

/** What a transcription produced; the body of `POST /transcribe` and `result` of a finished job. */
export interface TranscriptionResult {
  text: string;
  language: string | null;
  /** audio duration in seconds, as the engine measured it */
  duration: number | null;
  segments: TranscriptionSegment[];
  /** every word with its timing, when the engine gave word timestamps (shown by `verbose_json`) */
  words?: TranscriptionWord[];
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

/** Engine options beyond language and task (whisper-asr-webservice's names); what the engine cannot do is refused up front. */
export interface JobOptions {
  initial_prompt?: string;
  vad_filter?: boolean;
  diarize?: boolean;
  min_speakers?: number;
  max_speakers?: number;
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
  /** absent on jobs queued before the field existed: none */
  options?: JobOptions;
  /** seconds of audio, read from the file's header when it has one (progress estimates) */
  audio_seconds?: number | null;
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
  /** when the result was first read (its removal is then TRANSCRIBE_READ_RESULT_TTL_SECONDS away), null if never */
  readAt?: Date | null;
}

/** What the record's progress and expiry are computed against. */
export interface RecordContext {
  now: number;
  /** the queue's measured engine seconds per audio second, null before any job finished */
  realTimeFactor: number | null;
  ttlSeconds: number;
  readTtlSeconds: number;
}

/** A running job's progress, estimated from the audio's duration and the engine's real-time factor. */
export interface JobProgress {
  elapsed_seconds: number;
  audio_seconds: number | null;
  real_time_factor: number | null;
  estimated_total_seconds: number | null;
  estimated_remaining_seconds: number | null;
  /** 0–99 while running (an estimate never claims 100 before the engine answers), null without an estimate */
  percent: number | null;
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
  /** while started: elapsed time and the estimate; null otherwise */
  progress: JobProgress | null;
  /** when the record and its result will be removed (ended jobs): TRANSCRIBE_RESULT_TTL_SECONDS after the end, or TRANSCRIBE_READ_RESULT_TTL_SECONDS after the first read if sooner */
  expires_at: string | null;
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
    case 'cancelled':
      return 'The job was cancelled (DELETE /transcribe/jobs/{id}); its upload was removed. Submit the file again to transcribe it.';
  }
}

/** The progress of a started job at `now`. */
export function progressOf(startedAt: Date, audioSeconds: number | null, realTimeFactor: number | null, now: number): JobProgress {
  const elapsed = Math.max(0, (now - startedAt.getTime()) / 1000);
  const total = audioSeconds !== null && realTimeFactor !== null ? audioSeconds * realTimeFactor : null;
  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    elapsed_seconds: r(elapsed),
    audio_seconds: audioSeconds,
    real_time_factor: realTimeFactor === null ? null : Math.round(realTimeFactor * 1000) / 1000,
    estimated_total_seconds: total === null ? null : r(total),
    estimated_remaining_seconds: total === null ? null : r(Math.max(0, total - elapsed)),
    percent: total === null ? null : total <= 0 ? 99 : Math.min(99, Math.floor((elapsed / total) * 100)),
  };
}

/** When an ended job's record goes: the end plus the TTL, or the first read plus the shorter TTL if sooner. */
export function expiryOf(endedAt: Date | null, readAt: Date | null | undefined, ctx: Pick<RecordContext, 'ttlSeconds' | 'readTtlSeconds'>): Date | null {
  if (!endedAt) return null;
  const unread = endedAt.getTime() + ctx.ttlSeconds * 1000;
  return new Date(readAt ? Math.min(unread, readAt.getTime() + ctx.readTtlSeconds * 1000) : unread);
}

export function toJobRecord(s: JobSnapshot, ctx?: RecordContext): JobRecord {
  const expires = ctx ? expiryOf(s.endedAt, s.readAt, ctx) : null;
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
    audio_duration: s.result?.duration ?? s.input.audio_seconds ?? null,
    queue_position: s.status === 'queued' ? s.position : null,
    attempts: s.attempts,
    created_at: s.input.created_at,
    started_at: s.startedAt ? s.startedAt.toISOString() : null,
    ended_at: s.endedAt ? s.endedAt.toISOString() : null,
    result: s.status === 'finished' ? s.result : null,
    error: s.status === 'failed' ? s.error : null,
    progress: ctx && s.status === 'started' && s.startedAt ? progressOf(s.startedAt, s.input.audio_seconds ?? null, ctx.realTimeFactor, ctx.now) : null,
    expires_at: expires ? expires.toISOString() : null,
  };
}

/** The real-time factor of finished results: engine seconds per audio second, averaged; null without any. */
export function realTimeFactorOf(results: Array<Pick<TranscriptionResult, 'processing_time' | 'duration'> | null | undefined>): number | null {
  const factors = results.filter((r) => r && r.duration && r.duration > 0).map((r) => r!.processing_time / r!.duration!);
  return factors.length ? factors.reduce((a, b) => a + b, 0) / factors.length : null;
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
