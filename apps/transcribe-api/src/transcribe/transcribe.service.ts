import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { GateClosedError } from '../engines/concurrency-gate';
import { EngineError } from '../engines/engine-client';
import { EnginesService } from '../engines/engines.service';
import { VERBATIM } from '../formats/subtitles';
import { parseOutputFormat, renderTranscript, wordsBySegment, type OutputFormat, type RenderedTranscript } from '../formats/transcript-output';
import {
  DEFAULT_ENGINE,
  DEFAULT_TASK,
  ENGINES,
  QUEUES,
  estimateWaitSeconds,
  type EngineName,
  type JobInput,
  type JobOptions,
  type QueueStats,
  type TranscriptionResult,
} from '../transcription/job-record';
import { TranscriptionQueues, type TranscriptionQueue } from '../queue/transcription-queue';
import { readAudioSeconds } from '../media/audio-duration';
import type { StoredAudioFile } from '../uploads/audio-disk-storage';
import { removeUpload } from '../uploads/remove-upload';
import type { AsrQueryDto, DetectLanguageQueryDto, DetectLanguageResponseDto } from './dto/asr-query.dto';
import type { AsyncSubmitResponseDto, QueueStatsResponseDto } from './dto/responses.dto';
import type { EngineOptionsDto, TranscribeFormDto } from './dto/transcribe-form.dto';
import { LANGUAGE_NAMES } from '../transcription/languages';
import { EngineCannotError, EngineNotConfiguredError, TranscriptionRunner, type StoredUpload } from './transcription-runner';

const notConfigured = (err: EngineNotConfiguredError): ApiError =>
  new ApiError(503, 'ENGINE_NOT_CONFIGURED', `Engine ${err.engine} is not configured on this server.`, {
    suggestion: `Choose the other engine, or ask the operator to set ${EnginesService.variableOf(err.engine)}.`,
  });

const cannot = (err: EngineCannotError): ApiError =>
  new ApiError(422, 'OPTION_NOT_SUPPORTED', `The request asks for ${err.option}, which the engine cannot honour: ${err.message}.`, {
    suggestion: 'Leave the option out, or choose an engine that supports it (GET / lists each engine\'s protocol and capabilities).',
  });

/** The options a form or query carries, in the job's terms. */
export function jobOptionsOf(dto: EngineOptionsDto): JobOptions {
  const options: JobOptions = {};
  if (dto.initial_prompt) options.initial_prompt = dto.initial_prompt;
  if (dto.vad_filter) options.vad_filter = true;
  if (dto.diarize) options.diarize = true;
  if (dto.min_speakers !== undefined) options.min_speakers = dto.min_speakers;
  if (dto.max_speakers !== undefined) options.max_speakers = dto.max_speakers;
  return options;
}

/** How long a submission's wait estimate reuses the queue's counts (TranscribeService.estimateInputs). */
const ESTIMATE_INPUTS_MS = 250;

const uploadOf = (file: StoredAudioFile): StoredUpload => ({ path: file.path, filename: file.originalname, size: file.size, mediaType: file.media.mime });

/** What `/asr` answers: the document, with the origin's attachment name and engine header. */
export interface AsrAnswer {
  rendered: RenderedTranscript;
  filename: string;
  engine: EngineName;
}

/**
 * The synchronous routes (`POST /transcribe`, whisper-asr-webservice's `/asr` and `/detect-language`)
 * and the submission of jobs. Synchronous calls pass each engine's gate: at most
 * `*_SYNC_CONCURRENCY` at once per process, `TRANSCRIBE_SYNC_QUEUE_SIZE` waiting, the rest 503.
 */
@Injectable()
export class TranscribeService {
  private readonly logger = new Logger(TranscribeService.name);
  private readonly estimates = new Map<TranscriptionQueue, { at: number; inputs: Promise<[QueueStats, number | null]> }>();

  constructor(
    private readonly queues: TranscriptionQueues,
    private readonly runner: TranscriptionRunner,
    private readonly engines: EnginesService,
  ) {}

  /**
   * `POST /transcribe`: straight to the engine; the upload is removed whatever happens. `signal`
   * aborts when the client goes away, so that the engine stops working for nobody.
   */
  async transcribeNow(file: StoredAudioFile, form: TranscribeFormDto, signal?: AbortSignal): Promise<RenderedTranscript> {
    const engine = form.engine ?? DEFAULT_ENGINE;
    const format: OutputFormat = parseOutputFormat(form.response_format ?? form.output ?? 'json') ?? 'json';
    const result = await this.sync(file, engine, signal, (s) =>
      this.runner.run(engine, uploadOf(file), { language: form.language ?? null, task: form.task ?? DEFAULT_TASK, options: jobOptionsOf(form), signal: s }),
    );
    return renderTranscript(result, format);
  }

  /** whisper-asr-webservice's `POST /asr`: its parameters, its documents (one cue per segment). */
  async asr(file: StoredAudioFile, query: AsrQueryDto, signal?: AbortSignal): Promise<AsrAnswer> {
    const options = jobOptionsOf(query);
    const engine = query.engine ?? this.engineFor(options);
    const output = query.output ?? 'txt';
    const result = await this.sync(file, engine, signal, (s) =>
      this.runner.run(engine, uploadOf(file), { language: query.language ?? null, task: query.task ?? DEFAULT_TASK, options, signal: s }),
    );
    const rendered: RenderedTranscript =
      output === 'json'
        ? { kind: 'json', body: whisperResultDict(result, !!query.word_timestamps) }
        : renderTranscript(result, parseOutputFormat(output)!, VERBATIM);
    return { rendered, filename: `${file.originalname}.${output}`, engine };
  }

  /** whisper-asr-webservice's `POST /detect-language`. */
  async detectLanguage(file: StoredAudioFile, query: DetectLanguageQueryDto, signal?: AbortSignal): Promise<DetectLanguageResponseDto> {
    const engine = query.engine ?? this.engineFor({});
    const found = await this.sync(file, engine, signal, (s) => this.runner.detectLanguage(engine, uploadOf(file), s));
    return { detected_language: LANGUAGE_NAMES[found.language_code] ?? found.language_code, language_code: found.language_code, confidence: found.confidence };
  }

  /** `POST /transcribe/async`: the upload waits on disk until a worker takes the job. */
  async submit(file: StoredAudioFile, form: TranscribeFormDto, requestId?: string): Promise<AsyncSubmitResponseDto> {
    const engine = form.engine ?? DEFAULT_ENGINE;
    const queue = this.queues.get(engine);
    const options = jobOptionsOf(form);
    const input: JobInput = {
      job_id: randomUUID(),
      engine,
      language: form.language ?? null,
      task: form.task ?? DEFAULT_TASK,
      filename: file.originalname,
      file_size: file.size,
      media_type: file.media.mime,
      file_path: file.path,
      created_at: new Date().toISOString(),
      request_id: requestId,
      ...(Object.keys(options).length ? { options } : {}),
      audio_seconds: await readAudioSeconds(file.path, file).catch(() => null),
    };
    let snapshot;
    let estimates: Promise<[QueueStats, number | null]> | undefined;
    try {
      this.runner.assertCan(engine, options);
      const added = queue.add(input);
      // Read alongside the add: the running jobs, the workers and the average do not depend on it.
      estimates = this.estimateInputs(queue);
      snapshot = await added;
    } catch (err) {
      await removeUpload(file.path).catch(() => undefined);
      if (err instanceof EngineNotConfiguredError) throw notConfigured(err);
      if (err instanceof EngineCannotError) throw cannot(err);
      throw new ApiError(503, 'QUEUE_UNAVAILABLE', `Could not queue the job: ${err instanceof Error ? err.message : String(err)}.`, {
        suggestion: 'The queue store (Redis) is unreachable: retry in a moment.',
      });
    }
    // The job is queued: from here on a failure only makes the estimate rougher.
    // queue_position counts the waiting jobs ahead of this one (0 = next), as the origin's RQ did.
    let position = snapshot.status === 'queued' ? (snapshot.position ?? 0) : 0;
    let estimatedWait: number;
    try {
      const [stats, average] = await estimates!;
      if (snapshot.status === 'queued' && snapshot.position === null) position = Math.max(0, stats.queued - 1);
      // A job a worker already took waits for nothing.
      estimatedWait = snapshot.status === 'queued' ? estimateWaitSeconds(position, stats.started, stats.workers, average, QUEUES[engine]) : 0;
    } catch (err) {
      this.logger.warn(`job ${input.job_id} queued, but its wait could not be estimated: ${String(err)}`);
      estimatedWait = estimateWaitSeconds(position, 0, 1, null, QUEUES[engine]);
    }
    return {
      job_id: input.job_id,
      status: 'queued',
      message: `Transcription job queued: ${input.filename} (queue ${queue.spec.queueName}, ${position} job(s) ahead); poll /transcribe/status/${input.job_id} until status is finished or failed.`,
      queue_position: position,
      estimated_wait: estimatedWait,
      engine,
      queue_name: queue.spec.queueName,
      status_url: `/transcribe/status/${input.job_id}`,
    };
  }

  /**
   * The queue's counts and average job time for a submission's wait estimate, read at most once
   * every ESTIMATE_INPUTS_MS per queue in this process: a burst of submissions shares one read (the
   * position in the queue is each job's own). A failed read is not reused.
   */
  private estimateInputs(queue: TranscriptionQueue): Promise<[QueueStats, number | null]> {
    const now = Date.now();
    const cached = this.estimates.get(queue);
    if (cached && now - cached.at < ESTIMATE_INPUTS_MS) return cached.inputs;
    const inputs = Promise.all([queue.stats(), queue.averageJobSeconds()]);
    const entry = { at: now, inputs };
    inputs.catch(() => {
      if (this.estimates.get(queue) === entry) this.estimates.delete(queue);
    });
    this.estimates.set(queue, entry);
    return inputs;
  }

  async stats(engine: EngineName = DEFAULT_ENGINE): Promise<QueueStatsResponseDto> {
    let all: QueueStats[];
    try {
      all = await Promise.all(ENGINES.map((e) => this.queues.get(e).stats()));
    } catch (err) {
      throw new ApiError(503, 'QUEUE_UNAVAILABLE', `The queue store is unreachable: ${err instanceof Error ? err.message : String(err)}.`, {
        suggestion: 'Retry in a moment; GET /health shows whether Redis is connected.',
      });
    }
    const top = all.find((s) => s.engine === engine)!;
    return { ...top, queues: all };
  }

  /** The default engine, or for options it cannot honour the first configured engine that can. */
  private engineFor(options: JobOptions): EngineName {
    const can = (engine: EngineName) => {
      try {
        this.runner.assertCan(engine, options);
        return true;
      } catch {
        return false;
      }
    };
    if (can(DEFAULT_ENGINE)) return DEFAULT_ENGINE;
    return ENGINES.find(can) ?? DEFAULT_ENGINE;
  }

  /** One synchronous engine call: through the engine's gate, its errors as HTTP answers, the upload removed whatever happens. */
  private async sync<T>(file: StoredAudioFile, engine: EngineName, signal: AbortSignal | undefined, call: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    const gate = this.engines.gate(engine);
    try {
      return await gate.run(() => call(signal), signal);
    } catch (err) {
      if (signal?.aborted) throw new ApiError(499, 'CLIENT_CLOSED_REQUEST', 'The client closed the connection before the transcription ended.');
      if (err instanceof GateClosedError) {
        throw new ApiError(
          503,
          'ENGINE_BUSY',
          `Engine ${engine} is busy: ${err.active} synchronous call(s) running and ${err.waiting} waiting (${err.reason === 'busy' ? 'the waiting line is full' : 'no slot became free in time'}).`,
          {
            suggestion: `Retry after ${err.retryAfterSeconds} s, or use POST /transcribe/async, which queues the file.`,
            headers: { 'Retry-After': String(err.retryAfterSeconds) },
          },
        );
      }
      if (err instanceof EngineNotConfiguredError) throw notConfigured(err);
      if (err instanceof EngineCannotError) throw cannot(err);
      if (err instanceof EngineError) {
        const timedOut = /did not answer within/.test(err.message);
        throw new ApiError(timedOut ? 504 : 502, timedOut ? 'ENGINE_TIMEOUT' : 'ENGINE_ERROR', `Transcription failed: ${err.message}.`, {
          suggestion: err.transient
            ? 'The engine is down or overloaded: retry later, or use POST /transcribe/async, which queues the file.'
            : err.status === 404 || err.status === 405
              ? 'The engine does not serve this request (task=translate needs its /v1/audio/translations): use task=transcribe, or the other engine.'
              : 'Check that the file plays and is not corrupt, or retry with the other engine.',
        });
      }
      throw err;
    } finally {
      await removeUpload(file.path).catch((err) => this.logger.warn(`could not remove ${file.path}: ${String(err)}`));
    }
  }
}

/** Whisper's result dict, as whisper-asr-webservice's `json` output prints it: text, segments (words only with word_timestamps), language. */
export function whisperResultDict(result: TranscriptionResult, wordTimestamps: boolean): object {
  const placed = wordTimestamps ? wordsBySegment(result.segments, result.words ?? []) : [];
  const segments = result.segments.map((s, i) => {
    if (wordTimestamps) return s.words ? s : { ...s, words: placed[i] };
    const { words: _words, ...rest } = s;
    return rest;
  });
  return { text: result.text, segments, language: result.language };
}
