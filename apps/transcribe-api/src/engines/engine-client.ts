import { openAsBlob } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, FormData, request } from 'undici';
import type { EngineName, TranscriptionSegment, TranscriptionTask, TranscriptionWord } from '../transcription/job-record';
import { languageCodeOf } from '../transcription/languages';

/** What an engine returned, normalised (both protocols). */
export interface EngineTranscription {
  text: string;
  language: string | null;
  duration: number | null;
  segments: TranscriptionSegment[];
  /** every word with its timing, when the engine gave them */
  words?: TranscriptionWord[];
}

/**
 * The two protocols an engine may speak: `openai` (`POST /v1/audio/transcriptions`, faster-whisper
 * servers, whisper.cpp, the hosted OpenAI API) or `asr` (whisper-asr-webservice's `POST /asr` and
 * `POST /detect-language`; WhisperX-backed deployments diarize).
 */
export const ENGINE_PROTOCOLS = ['openai', 'asr'] as const;
export type EngineProtocol = (typeof ENGINE_PROTOCOLS)[number];

/** What a request may ask of an engine beyond the audio; what the engine cannot do is refused before the upload is sent. */
export interface EngineCapabilities {
  /** voice activity detection filter (faster-whisper behind `/asr`) */
  vadFilter: boolean;
  /** speaker labels (`/asr` of a WhisperX deployment with diarization set up) */
  diarize: boolean;
  /** `/detect-language` gives a probability (the OpenAI protocol has none: confidence null) */
  languageConfidence: boolean;
}

export interface LanguageDetection {
  language_code: string;
  /** the engine's probability for it, null when its protocol gives none */
  confidence: number | null;
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
  /** default `openai` */
  protocol?: EngineProtocol;
  /** sent as `Authorization: Bearer <apiKey>` (the hosted OpenAI API, or a proxy in front of an engine) */
  apiKey?: string;
  /** an `asr` engine is a WhisperX deployment with diarization set up */
  diarization?: boolean;
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
  /** text to steer the style and vocabulary (`prompt` / `initial_prompt`) */
  prompt?: string | null;
  /** voice activity detection (`asr` engines only) */
  vadFilter?: boolean;
  /** speaker labels (`asr` engines with diarization only) */
  diarize?: { minSpeakers?: number; maxSpeakers?: number } | null;
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

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function parseWord(w: unknown): TranscriptionWord | null {
  if (!w || typeof w !== 'object') return null;
  // faster-whisper's Word serialised as a tuple: start, end, word, probability
  const o = (Array.isArray(w) ? { start: w[0], end: w[1], word: w[2], probability: w[3] } : w) as Record<string, unknown>;
  const word = typeof o.word === 'string' ? o.word : typeof o.text === 'string' ? o.text : null;
  const start = num(o.start);
  const end = num(o.end);
  if (word === null || start === undefined || end === undefined) return null; // WhisperX leaves digits it could not align untimed
  const out: TranscriptionWord = { word, start, end };
  const probability = num(o.probability) ?? num(o.score);
  if (probability !== undefined) out.probability = probability;
  if (typeof o.speaker === 'string') out.speaker = o.speaker;
  return out;
}

/** faster-whisper's Segment serialised as a tuple: id, seek, start, end, text, tokens, temperature, avg_logprob, compression_ratio, no_speech_prob, words. */
const TUPLE_FIELDS = ['id', 'seek', 'start', 'end', 'text', 'tokens', 'temperature', 'avg_logprob', 'compression_ratio', 'no_speech_prob', 'words'];

function parseSegment(raw: unknown, index: number): TranscriptionSegment | null {
  const s = Array.isArray(raw) ? Object.fromEntries(TUPLE_FIELDS.map((k, i) => [k, raw[i]])) : raw;
  if (!s || typeof s !== 'object') return null;
  const o = s as Record<string, unknown>;
  const segment: TranscriptionSegment = {
    id: num(o.id) ?? index,
    start: num(o.start) ?? 0,
    end: num(o.end) ?? 0,
    text: typeof o.text === 'string' ? o.text : '',
  };
  if (typeof o.speaker === 'string') segment.speaker = o.speaker;
  for (const key of ['seek', 'temperature', 'avg_logprob', 'compression_ratio', 'no_speech_prob'] as const) {
    const v = num(o[key]);
    if (v !== undefined) segment[key] = v;
  }
  if (Array.isArray(o.tokens) && o.tokens.every((t) => typeof t === 'number')) segment.tokens = o.tokens as number[];
  if (Array.isArray(o.words)) segment.words = o.words.map(parseWord).filter((w): w is TranscriptionWord => !!w);
  return segment;
}

/**
 * Reads a transcription document: OpenAI's `verbose_json` (or plain `json`), or the JSON of
 * whisper-asr-webservice's `/asr` (whisper's result dict; WhisperX's without `text`, with speakers
 * and `word_segments`; faster-whisper segments as tuples). The language may be a code or Whisper's
 * name (`french`, the hosted OpenAI API): it becomes the code.
 */
export function parseEngineResponse(body: unknown): EngineTranscription {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const segments = Array.isArray(b.segments) ? b.segments.map(parseSegment).filter((s): s is TranscriptionSegment => !!s) : [];
  if (typeof b.text !== 'string' && !Array.isArray(b.segments)) {
    throw new EngineError('the engine answered without a "text" field or segments; is it an OpenAI-compatible or whisper-asr-webservice transcription server?', false);
  }
  const text = typeof b.text === 'string' ? b.text : segments.map((s) => s.text.trim()).filter(Boolean).join(' ');
  const duration = typeof b.duration === 'number' ? b.duration : typeof b.duration === 'string' ? Number(b.duration) : NaN;
  const topWords = Array.isArray(b.words) ? b.words : Array.isArray(b.word_segments) ? b.word_segments : null;
  const words = topWords ? topWords.map(parseWord).filter((w): w is TranscriptionWord => !!w) : segments.some((s) => s.words) ? segments.flatMap((s) => s.words ?? []) : undefined;
  const out: EngineTranscription = {
    text,
    language: typeof b.language === 'string' && b.language ? (languageCodeOf(b.language) ?? b.language) : null,
    duration: Number.isFinite(duration) ? duration : segments.length ? segments[segments.length - 1].end : null,
    segments,
  };
  if (words) out.words = words;
  return out;
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return undefined;
}

/**
 * Client of one engine, in either protocol: OpenAI-compatible `/v1/audio/transcriptions` (faster-
 * whisper-server / speaches, whisper.cpp server, OpenAI) or whisper-asr-webservice's `/asr`. The file
 * is streamed from disk (a file-backed Blob), so a 500 MB upload never sits in memory. Word timings
 * are always asked for (subtitles are cut at words, and `verbose_json` is chosen when a job's result
 * is read, after the engine ran).
 */
export class EngineClient {
  private readonly base: string;
  private readonly agent: Agent;
  readonly protocol: EngineProtocol;
  readonly capabilities: EngineCapabilities;

  constructor(private readonly opts: EngineClientOptions) {
    this.base = normaliseBaseUrl(opts.baseUrl);
    this.protocol = opts.protocol ?? 'openai';
    this.capabilities = {
      vadFilter: this.protocol === 'asr',
      diarize: this.protocol === 'asr' && !!opts.diarization,
      languageConfidence: this.protocol === 'asr',
    };
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
    return this.withRetries(opts.signal, async (signal) => {
      const json = this.protocol === 'asr' ? await this.postAsr(file, opts, signal) : await this.postOpenAi(file, opts, signal);
      return parseEngineResponse(json);
    });
  }

  /**
   * The spoken language: `/detect-language` of an `asr` engine (code and probability), or the
   * language an OpenAI-compatible engine reports for a transcription (its protocol has no
   * probability: confidence null).
   */
  async detectLanguage(file: TranscribeFile, opts: { signal?: AbortSignal } = {}): Promise<LanguageDetection> {
    if (this.protocol === 'openai') {
      const out = await this.transcribe(file, { signal: opts.signal });
      if (!out.language) throw new EngineError(`engine ${this.opts.engine} reported no language for the audio`, false);
      return { language_code: out.language, confidence: null };
    }
    return this.withRetries(opts.signal, async (signal) => {
      const form = new FormData();
      form.append('audio_file', await openAsBlob(file.path, { type: file.mediaType }), file.filename);
      const body = (await this.post('/detect-language?encode=true', form, signal)) as { language_code?: unknown; confidence?: unknown };
      const code = typeof body?.language_code === 'string' ? languageCodeOf(body.language_code) : null;
      if (!code) throw new EngineError(`engine ${this.opts.engine} answered /detect-language without a language it knows`, false);
      return { language_code: code, confidence: typeof body.confidence === 'number' ? body.confidence : null };
    });
  }

  private async withRetries<T>(outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    let lastError: EngineError | undefined;
    for (let attempt = 1; attempt <= Math.max(1, this.opts.attempts); attempt++) {
      try {
        const signal = outer ? AbortSignal.any([outer, AbortSignal.timeout(this.opts.timeoutMs)]) : AbortSignal.timeout(this.opts.timeoutMs);
        return await fn(signal);
      } catch (err) {
        const error = this.toEngineError(err);
        if (outer?.aborted) throw error;
        if (!error.transient || attempt >= this.opts.attempts) {
          lastError = error;
          break;
        }
        lastError = error;
        const retryAfter = (err as { retryAfter?: number }).retryAfter;
        await sleep(backoffMs(attempt, this.opts.retryBaseMs, retryAfter), undefined, { signal: outer }).catch(() => undefined);
        if (outer?.aborted) throw error;
      }
    }
    const attempts = lastError?.transient ? ` after ${this.opts.attempts} attempt(s)` : '';
    throw new EngineError(`${lastError?.message ?? 'unknown engine error'}${attempts}`, lastError?.transient ?? false, lastError?.status);
  }

  private async postOpenAi(file: TranscribeFile, opts: TranscribeOptions, signal: AbortSignal): Promise<unknown> {
    const task = opts.task ?? 'transcribe';
    const form = new FormData();
    form.append('file', await openAsBlob(file.path, { type: file.mediaType }), file.filename);
    form.append('model', this.opts.model);
    form.append('response_format', 'verbose_json');
    if (task === 'transcribe') {
      // The translations endpoint has neither field: its output language is always English.
      form.append('timestamp_granularities[]', 'segment');
      form.append('timestamp_granularities[]', 'word');
      if (opts.language) form.append('language', opts.language);
    }
    if (opts.prompt) form.append('prompt', opts.prompt);
    return this.post(TASK_PATHS[task], form, signal);
  }

  private async postAsr(file: TranscribeFile, opts: TranscribeOptions, signal: AbortSignal): Promise<unknown> {
    const query = new URLSearchParams({ encode: 'true', task: opts.task ?? 'transcribe', output: 'json', word_timestamps: 'true' });
    if (opts.language) query.set('language', opts.language);
    if (opts.prompt) query.set('initial_prompt', opts.prompt);
    if (opts.vadFilter) query.set('vad_filter', 'true');
    if (opts.diarize) {
      query.set('diarize', 'true');
      if (opts.diarize.minSpeakers !== undefined) query.set('min_speakers', String(opts.diarize.minSpeakers));
      if (opts.diarize.maxSpeakers !== undefined) query.set('max_speakers', String(opts.diarize.maxSpeakers));
    }
    const form = new FormData();
    form.append('audio_file', await openAsBlob(file.path, { type: file.mediaType }), file.filename);
    return this.post(`/asr?${query}`, form, signal);
  }

  private headers(): Record<string, string> {
    return this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {};
  }

  /** POSTs the form and reads a JSON answer; errors become EngineErrors (transient ones retried by the caller). */
  private async post(path: string, form: FormData, signal: AbortSignal): Promise<unknown> {
    const res = await request(`${this.base}${path}`, {
      method: 'POST',
      body: form,
      headers: { accept: 'application/json', ...this.headers() },
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
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new EngineError(`engine ${this.opts.engine} answered with a body that is not JSON`, false, res.statusCode);
    }
  }

  /** Throws unless the engine answers its health endpoint (`/health`, else `/v1/models`, or `/openapi.json` for `asr`). */
  async check(): Promise<void> {
    const timeout = this.opts.probeTimeoutMs ?? 3_000;
    const fallback = this.protocol === 'asr' ? '/openapi.json' : '/v1/models';
    for (const path of ['/health', fallback]) {
      let status: number;
      try {
        const res = await request(`${this.base}${path}`, { method: 'GET', headers: this.headers(), dispatcher: this.agent, signal: AbortSignal.timeout(timeout) });
        await res.body.dump();
        status = res.statusCode;
      } catch (err) {
        throw this.toEngineError(err);
      }
      if (status < 400) return;
      if (status !== 404 && status !== 405) throw new EngineError(`engine ${this.opts.engine} health answered HTTP ${status}`, true, status);
    }
    throw new EngineError(`engine ${this.opts.engine} has neither /health nor ${fallback}`, false, 404);
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
