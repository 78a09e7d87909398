import { openAsBlob } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, FormData, request } from 'undici';
import type { EngineName, TranscriptionSegment, TranscriptionTask } from '../jobs/job-record';

/** What an OpenAI-compatible engine returned, normalised. */
export interface EngineTranscription {
  text: string;
  language: string | null;
  duration: number | null;
  segments: TranscriptionSegment[];
}

export interface EngineClientOptions {
  engine: EngineName;
  /** base URL of the server (`http://host:8001`; a trailing `/v1` is accepted) */
  baseUrl: string;
  model: string;
  /** longest time one transcription may take before it is abandoned */
  timeoutMs: number;
  /** attempts for transient failures (connection refused or reset, 408, 429, 502, 503, 504) */
  attempts: number;
  /** first retry delay; doubles each time (with jitter), capped at 30 s */
  retryBaseMs: number;
  /** timeout of the health probe */
  probeTimeoutMs?: number;
}

export interface TranscribeFile {
  path: string;
  filename: string;
  mediaType: string;
}

/** A failure talking to an engine. `transient` failures were retried before this was thrown. */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

const TRANSIENT_STATUS = new Set([408, 429, 502, 503, 504]);
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const MAX_BACKOFF_MS = 30_000;

export interface TranscribeOptions {
  /** ISO 639-1 code of the speech; null lets the engine detect it (not sent when translating) */
  language?: string | null;
  /** `translate` asks `/v1/audio/translations` for English text; default `transcribe` */
  task?: TranscriptionTask;
  signal?: AbortSignal;
}

/** The OpenAI paths of the two tasks. */
export const TASK_PATHS: Record<TranscriptionTask, string> = {
  transcribe: '/v1/audio/transcriptions',
  translate: '/v1/audio/translations',
};

export function normaliseBaseUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The delay before retry number `attempt` (1 = first retry): exponential with ±20 % jitter, capped. */
export function backoffMs(attempt: number, baseMs: number, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    return Math.min(retryAfterSeconds * 1000, MAX_BACKOFF_MS);
  }
  const exp = baseMs * 2 ** (attempt - 1);
  const jitter = exp * 0.2 * (Math.random() * 2 - 1);
  return Math.min(Math.max(0, Math.round(exp + jitter)), MAX_BACKOFF_MS);
}

/** Reads the OpenAI `verbose_json` (or plain `json`) transcription body. */
export function parseEngineResponse(body: unknown): EngineTranscription {
  if (!body || typeof body !== 'object' || typeof (body as { text?: unknown }).text !== 'string') {
    throw new EngineError('the engine answered without a "text" field; is it an OpenAI-compatible transcription server?', false);
  }
  const b = body as { text: string; language?: unknown; duration?: unknown; segments?: unknown };
  const segments = Array.isArray(b.segments)
    ? b.segments
        .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object')
        .map((s, i) => ({
          id: typeof s.id === 'number' ? s.id : i,
          start: typeof s.start === 'number' ? s.start : 0,
          end: typeof s.end === 'number' ? s.end : 0,
          text: typeof s.text === 'string' ? s.text : '',
        }))
    : [];
  const duration = typeof b.duration === 'number' ? b.duration : typeof b.duration === 'string' ? Number(b.duration) : NaN;
  return {
    text: b.text,
    language: typeof b.language === 'string' && b.language ? b.language : null,
    duration: Number.isFinite(duration) ? duration : segments.length ? segments[segments.length - 1].end : null,
    segments,
  };
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return undefined;
}

/**
 * Client of an OpenAI-compatible `/v1/audio/transcriptions` server (faster-whisper-server /
 * speaches, whisper.cpp server, OpenAI). The file is streamed from disk (a file-backed Blob), so a
 * 500 MB upload never sits in memory.
 */
export class EngineClient {
  private readonly base: string;
  private readonly agent: Agent;

  constructor(private readonly opts: EngineClientOptions) {
    this.base = normaliseBaseUrl(opts.baseUrl);
    this.agent = new Agent({
      connectTimeout: 10_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  get url(): string {
    return this.base;
  }

  async transcribe(file: TranscribeFile, opts: TranscribeOptions = {}): Promise<EngineTranscription> {
    let lastError: EngineError | undefined;
    for (let attempt = 1; attempt <= Math.max(1, this.opts.attempts); attempt++) {
      try {
        return await this.once(file, opts);
      } catch (err) {
        const error = this.toEngineError(err);
        if (opts.signal?.aborted) throw error;
        if (!error.transient || attempt >= this.opts.attempts) {
          lastError = error;
          break;
        }
        lastError = error;
        const retryAfter = (err as { retryAfter?: number }).retryAfter;
        await sleep(backoffMs(attempt, this.opts.retryBaseMs, retryAfter), undefined, { signal: opts.signal }).catch(() => undefined);
        if (opts.signal?.aborted) throw error;
      }
    }
    const attempts = lastError?.transient ? ` after ${this.opts.attempts} attempt(s)` : '';
    throw new EngineError(`${lastError?.message ?? 'unknown engine error'}${attempts}`, lastError?.transient ?? false, lastError?.status);
  }

  private async once(file: TranscribeFile, opts: TranscribeOptions): Promise<EngineTranscription> {
    const task = opts.task ?? 'transcribe';
    const form = new FormData();
    const blob = await openAsBlob(file.path, { type: file.mediaType });
    form.append('file', blob, file.filename);
    form.append('model', this.opts.model);
    form.append('response_format', 'verbose_json');
    if (task === 'transcribe') {
      // The translations endpoint has neither field: its output language is always English.
      form.append('timestamp_granularities[]', 'segment');
      if (opts.language) form.append('language', opts.language);
    }

    const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(this.opts.timeoutMs)]) : AbortSignal.timeout(this.opts.timeoutMs);
    const res = await request(`${this.base}${TASK_PATHS[task]}`, {
      method: 'POST',
      body: form,
      headers: { accept: 'application/json' },
      dispatcher: this.agent,
      signal,
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) {
      const detail = extractDetail(text);
      const error = new EngineError(
        `engine ${this.opts.engine} answered HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}`,
        TRANSIENT_STATUS.has(res.statusCode),
        res.statusCode,
      ) as EngineError & { retryAfter?: number };
      const retryAfter = Number(res.headers['retry-after']);
      if (Number.isFinite(retryAfter)) error.retryAfter = retryAfter;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new EngineError(`engine ${this.opts.engine} answered with a body that is not JSON`, false, res.statusCode);
    }
    return parseEngineResponse(json);
  }

  /** Throws unless the engine answers its health endpoint (`/health`, else `/v1/models`). */
  async check(): Promise<void> {
    const timeout = this.opts.probeTimeoutMs ?? 3_000;
    for (const path of ['/health', '/v1/models']) {
      let status: number;
      try {
        const res = await request(`${this.base}${path}`, { method: 'GET', dispatcher: this.agent, signal: AbortSignal.timeout(timeout) });
        await res.body.dump();
        status = res.statusCode;
      } catch (err) {
        throw this.toEngineError(err);
      }
      if (status < 400) return;
      if (status !== 404 && status !== 405) throw new EngineError(`engine ${this.opts.engine} health answered HTTP ${status}`, true, status);
    }
    throw new EngineError(`engine ${this.opts.engine} has neither /health nor /v1/models`, false, 404);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private toEngineError(err: unknown): EngineError {
    if (err instanceof EngineError) return err;
    const code = errorCode(err);
    const name = (err as { name?: string } | undefined)?.name;
    if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new EngineError(
        `engine ${this.opts.engine} at ${this.base} did not answer within ${Math.round(this.opts.timeoutMs / 1000)} s`,
        false,
      );
    }
    if (name === 'AbortError') return new EngineError(`request to engine ${this.opts.engine} was cancelled`, false);
    const reason = code ?? (err as Error | undefined)?.message ?? String(err);
    return new EngineError(`engine ${this.opts.engine} at ${this.base} is unreachable (${reason})`, code ? TRANSIENT_CODES.has(code) : false);
  }
}

function extractDetail(text: string): string {
  try {
    const parsed = JSON.parse(text) as { detail?: unknown; error?: { message?: unknown } | string; message?: unknown };
    const detail =
      typeof parsed.detail === 'string'
        ? parsed.detail
        : typeof parsed.error === 'string'
          ? parsed.error
          : typeof parsed.error?.message === 'string'
            ? parsed.error.message
            : typeof parsed.message === 'string'
              ? parsed.message
              : undefined;
    if (detail) return detail.slice(0, 300);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim().slice(0, 300);
}
