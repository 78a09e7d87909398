import { TranscribeDetailErrorFilter } from './errors/detail-error.filter';
import type { ServiceDefinition } from '@platform/platform';
import { TranscribeApiModule } from './app.module';
import { TranscribeConfig } from './config';
import { SERVICE_VERSION } from './info/info.controller';

const description = `Transcription queue (spec 002, part D). Audio is transcribed synchronously (POST /transcribe) or through one of two BullMQ queues on Redis: \`transcription\` (database 0, higher-quality engine WHISPER_URL) and \`faster-whisper-transcription\` (database 1, faster engine FASTER_WHISPER_URL); choose with the \`engine\` field (default \`faster-whisper\`). Each engine speaks the OpenAI protocol or whisper-asr-webservice's (\`*_PROTOCOL=asr\`; WhisperX deployments diarize), with an optional API key.

**whisper-asr-webservice compatibility**: POST /asr and POST /detect-language take its parameters and answer as it does, so its clients work unchanged. Options an engine cannot honour (\`vad_filter\`, \`diarize\` on an OpenAI-compatible engine, \`encode=false\`) are refused with 422, never ignored.

**Output formats** (\`response_format\` or \`output\`): \`json\` (default, segments \`{id,start,end,text}\` plus \`speaker\` when diarized), \`verbose_json\` (everything the engine gave: segment probabilities, words with timings), \`text\`/\`txt\`, \`srt\`, \`vtt\`, \`tsv\` (Whisper's, milliseconds). Subtitles: at most 2 lines of 42 characters per cue, longer segments split at their word timings, empty segments left out, an overlapping cue ended where the next begins, speakers as \`<v Speaker 1>\`.

**Bounded synchronous calls**: per engine (across every API replica through Redis when REDIS_URL is set, else per process), \`*_SYNC_CONCURRENCY\` calls run, TRANSCRIBE_SYNC_QUEUE_SIZE wait (at most TRANSCRIBE_SYNC_MAX_WAIT_SECONDS), the rest get 503 with \`Retry-After\`.

**Authentication: none.** The service is meant for an internal network only (as the spec says); put it behind the gateway or a network policy, never on the public internet.

**Errors** (the spec does not show them) follow the FastAPI convention of the origin service: \`{"detail": "<what went wrong and what to do next>"}\` with 400 (no \`file\`, an empty file, several files, unreadable multipart), 404 (unknown or expired job), 409 (a result format asked of a job that has not finished), 413 (file over TRANSCRIBE_MAX_UPLOAD_BYTES, default 500 MB), 415 (not an audio/video container, judged by the file's bytes), 422 (an invalid field or query parameter, an unknown field, or an option the engine cannot honour), 502/504 (engine failed or timed out on a synchronous request), 503 (engine not configured or busy, or Redis unreachable), 507 (no disk space for the upload).

**Choices where the spec says "not shown"** (shapes from the origin service): the submit answer is \`{job_id, status: "queued", message, queue_position, estimated_wait}\` plus \`engine\`, \`queue_name\`, \`status_url\`; \`queue_position\` counts the waiting jobs ahead (0 = next) and \`estimated_wait\` is in seconds. \`task\` (\`transcribe\` or \`translate\`) is passed through as the origin's synchronous route did.

**Jobs**: status \`queued\` → \`started\` → \`finished\` | \`failed\`, or \`cancelled\` (DELETE /transcribe/jobs/{id}: the engine request is aborted, the upload removed). GET /transcribe/jobs lists them. While started, \`progress\` estimates the remaining time from the audio's duration (file header) and the queue's measured real-time factor. Records are kept TRANSCRIBE_RESULT_TTL_SECONDS (default 3600) after the job ends, or TRANSCRIBE_READ_RESULT_TTL_SECONDS (default 600) after their first read when sooner (\`expires_at\`). A worker that dies mid-job loses its lock; another worker takes the job over. Uploads are streamed to disk and removed when the job ends. \`transcribe.job_finished\` is published on the event bus when a job ends (through the transactional outbox: a broker outage delays it, never loses it).

**Storage**: job records live with the jobs in Redis (BullMQ job data and return value), or in memory when REDIS_URL is unset; its PostgreSQL database (schema \`transcribe\`) holds only the outbox of its events.`;

export const transcribeApiService: ServiceDefinition<TranscribeConfig> = {
  name: 'transcribe-api',
  port: 3006,
  schema: 'transcribe',
  config: TranscribeConfig,
  module: (config) => TranscribeApiModule.forRoot(config),
  errorFilter: () => new TranscribeDetailErrorFilter(),
  swagger: {
    title: 'transcribe-api',
    description,
    version: SERVICE_VERSION,
    aliases: ['/docs'],
  },
};
