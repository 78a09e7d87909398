import { Injectable } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import { EnginesService } from '../engines/engines.service';
import { DEFAULT_TASK, type EngineName, type TranscriptionResult, type TranscriptionTask } from '../jobs/job-record';

export interface StoredUpload {
  path: string;
  filename: string;
  size: number;
  mediaType: string;
}

/** Raised when the named engine has no URL configured. */
export class EngineNotConfiguredError extends Error {
  constructor(readonly engine: EngineName) {
    super(`engine ${engine} is not configured: set ${EnginesService.variableOf(engine)} to the URL of an OpenAI-compatible transcription server`);
    this.name = 'EngineNotConfiguredError';
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

  async run(
    engine: EngineName,
    upload: StoredUpload,
    opts: { language: string | null; task?: TranscriptionTask; signal?: AbortSignal },
  ): Promise<TranscriptionResult> {
    const client = this.engines.client(engine);
    if (!client) throw new EngineNotConfiguredError(engine);
    // Checked here, or the engine client would report the missing file as an unreachable engine.
    await stat(upload.path).catch(() => {
      throw new UploadMissingError(upload.path);
    });
    const task = opts.task ?? DEFAULT_TASK;
    const started = performance.now();
    const out = await client.transcribe(
      { path: upload.path, filename: upload.filename, mediaType: upload.mediaType },
      { language: opts.language, task, signal: opts.signal },
    );
    const processingTime = Math.round(performance.now() - started) / 1000;
    const language = out.language ?? opts.language;
    return {
      text: out.text,
      language,
      duration: out.duration,
      segments: out.segments,
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
}
