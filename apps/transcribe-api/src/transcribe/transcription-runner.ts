import { Injectable } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import type { LanguageDetection } from '../engines/engine-client';
import { EnginesService } from '../engines/engines.service';
import { DEFAULT_TASK, type EngineName, type JobOptions, type TranscriptionResult, type TranscriptionTask } from '../transcription/job-record';

export interface StoredUpload {
  path: string;
  filename: string;
  size: number;
  mediaType: string;
}

/** Raised when the named engine has no URL configured. */
export class EngineNotConfiguredError extends Error {
  constructor(readonly engine: EngineName) {
    super(`engine ${engine} is not configured: set ${EnginesService.variableOf(engine)} to the URL of a transcription server`);
    this.name = 'EngineNotConfiguredError';
  }
}

/** Raised when a request asks for something the engine cannot do (checked before anything is sent). */
export class EngineCannotError extends Error {
  constructor(
    readonly engine: EngineName,
    readonly option: string,
    message: string,
  ) {
    super(message);
    this.name = 'EngineCannotError';
  }
}

/** Raised when a job's upload is no longer on disk (typically: API and worker do not share DATA_DIR). */
export class UploadMissingError extends Error {
  constructor(path: string) {
    super(
      `the uploaded file is no longer on disk (${path}); with TRANSCRIBE_ROLE=api and worker processes, both must mount the same DATA_DIR`,
    );
    this.name = 'UploadMissingError';
  }
}

/** Sends one stored upload to an engine and shapes the result (used by sync requests and workers). */
@Injectable()
export class TranscriptionRunner {
  constructor(private readonly engines: EnginesService) {}

  isConfigured(engine: EngineName): boolean {
    return !!this.engines.client(engine);
  }

  /**
   * Throws EngineNotConfiguredError or EngineCannotError unless `engine` can honour every option:
   * nothing is silently ignored. Called before a job is queued, and again before it runs.
   */
  assertCan(engine: EngineName, options: JobOptions = {}): void {
    const client = this.engines.client(engine);
    if (!client) throw new EngineNotConfiguredError(engine);
    const prefix = engine === 'whisper' ? 'WHISPER' : 'FASTER_WHISPER';
    if (options.vad_filter && !client.capabilities.vadFilter) {
      throw new EngineCannotError(engine, 'vad_filter', `engine ${engine} speaks the OpenAI protocol, which has no voice activity detection filter (vad_filter); it needs ${prefix}_PROTOCOL=asr (whisper-asr-webservice with faster-whisper)`);
    }
    if (options.diarize && !client.capabilities.diarize) {
      throw new EngineCannotError(engine, 'diarize', `engine ${engine} does not diarize: speakers need whisper-asr-webservice on WhisperX with diarization set up (${prefix}_PROTOCOL=asr and ${prefix}_DIARIZATION=true)`);
    }
    if (!options.diarize && (options.min_speakers !== undefined || options.max_speakers !== undefined)) {
      throw new EngineCannotError(engine, 'min_speakers', 'min_speakers and max_speakers only apply with diarize=true');
    }
  }

  async run(
    engine: EngineName,
    upload: StoredUpload,
    opts: { language: string | null; task?: TranscriptionTask; options?: JobOptions; signal?: AbortSignal },
  ): Promise<TranscriptionResult> {
    const client = this.engines.client(engine);
    if (!client) throw new EngineNotConfiguredError(engine);
    const options = opts.options ?? {};
    this.assertCan(engine, options);
    const task = opts.task ?? DEFAULT_TASK;
    const started = performance.now();
    const out = await this.missingAs(
      upload,
      client.transcribe(
        { path: upload.path, filename: upload.filename, mediaType: upload.mediaType },
        {
          language: opts.language,
          task,
          prompt: options.initial_prompt,
          vadFilter: options.vad_filter,
          diarize: options.diarize ? { minSpeakers: options.min_speakers, maxSpeakers: options.max_speakers } : null,
          signal: opts.signal,
        },
      ),
    );
    const processingTime = Math.round(performance.now() - started) / 1000;
    const language = out.language ?? opts.language;
    return {
      text: out.text,
      language,
      duration: out.duration,
      segments: out.segments,
      ...(out.words ? { words: out.words } : {}),
      engine,
      model: this.engines.model(engine),
      processing_time: processingTime,
      metadata: {
        filename: upload.filename,
        file_size: upload.size,
        media_type: upload.mediaType,
        processing_time: processingTime,
        language,
        task,
        service: engine,
      },
    };
  }

  /** The spoken language of the upload (the engine's `/detect-language`, or its transcription's language). */
  async detectLanguage(engine: EngineName, upload: StoredUpload, signal?: AbortSignal): Promise<LanguageDetection> {
    const client = this.engines.client(engine);
    if (!client) throw new EngineNotConfiguredError(engine);
    return this.missingAs(upload, client.detectLanguage({ path: upload.path, filename: upload.filename, mediaType: upload.mediaType }, { signal }));
  }

  /**
   * The engine call's outcome, except that a failure with the upload gone from disk is an
   * UploadMissingError (the engine client would report it as an unreachable engine). Looked at only
   * when the call failed: a job that runs costs no extra file system call.
   */
  private async missingAs<T>(upload: StoredUpload, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      if (await stat(upload.path).then(() => false, () => true)) throw new UploadMissingError(upload.path);
      throw err;
    }
  }
}
