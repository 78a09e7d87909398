import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake speech-to-text engine for transcribe-api tests: node:http on 127.0.0.1, port 0. It speaks
 * two protocols at once:
 * - OpenAI-compatible `POST /v1/audio/transcriptions` (as served by whisper.cpp / faster-whisper
 *   servers), answering per `response_format`: `json` (the default, `{text}`), `verbose_json` (text,
 *   language, duration, segments, and `words` when `timestamp_granularities[]` holds `word`), `text`,
 *   `srt`, `vtt`;
 * - whisper-asr-webservice's `POST /asr` (multipart `audio_file`, query `task`, `language`,
 *   `initial_prompt`, `word_timestamps`, `vad_filter`, `output` txt|vtt|srt|tsv|json, and with
 *   `diarization: true` — a WhisperX deployment — `diarize`, `min_speakers`, `max_speakers`) and
 *   `POST /detect-language` (`{detected_language, language_code, confidence}`).
 * It parses the multipart upload, records every request (with the API key it carried) and every
 * request whose client went away before the answer (`aborted`). Failures and delays can be injected.
 *
 *   const engine = await startFakeTranscriptionEngine();
 *   // WHISPER_URL = engine.url
 *   engine.respondWith({ text: 'hello world', language: 'en' });
 *   engine.failNext({ status: 503 });     // the next request answers 503
 *   engine.delay(500);                    // every answer waits 500 ms
 *   expect(engine.requests[0].fields.model).toBe('whisper-1');
 *   await engine.close();
 */

export interface TranscriptionWord {
  word: string;
  start: number;
  end: number;
  probability?: number;
  speaker?: string;
}

export interface TranscriptionSegment {
  id: number;
  start: number;
  end: number;
  text: string;
  /** extra fields a real engine gives (avg_logprob, no_speech_prob, tokens, words, speaker…) pass through */
  [extra: string]: unknown;
}

export interface TranscriptionResult {
  text: string;
  language: string;
  duration: number;
  segments: TranscriptionSegment[];
  /** word timings; derived from the segments (evenly spread) when not given */
  words?: TranscriptionWord[];
}

export interface RecordedUpload {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  data: Buffer;
}

export interface RecordedTranscriptionRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The bearer token of the `Authorization` header, or null. */
  apiKey: string | null;
  /** Query parameters (the `/asr` protocol's options). */
  query: Record<string, string>;
  /** Text fields of the multipart body (model, language, response_format, prompt, temperature…); a repeated field keeps its last value. */
  fields: Record<string, string>;
  /** Every text field in order, repeated ones included (`timestamp_granularities[]`). */
  fieldList: Array<[string, string]>;
  /** The uploaded file (`file` field, or `audio_file` on `/asr`), when one was sent. */
  file?: RecordedUpload;
  at: number;
}

export interface TranscriptionFailure {
  /** HTTP status to answer; default 500. */
  status?: number;
  /** Body to answer; default an OpenAI-style `{error:{message,type}}`. */
  body?: unknown;
  /** `error` (default) answers `status`; `reset` destroys the socket without an answer. */
  mode?: 'error' | 'reset';
  /** How many requests fail; default 1. */
  times?: number;
}

/** Answers a request: a full result, or a partial one completed from the defaults. */
export type TranscriptionResponder = (req: RecordedTranscriptionRequest) => Partial<TranscriptionResult> | Promise<Partial<TranscriptionResult>>;

export interface FakeTranscriptionEngineOptions {
  /** Require `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  /** Models accepted in the `model` field; any when unset. */
  models?: string[];
  /** `/asr` honours `diarize` as a WhisperX deployment does (speakers on segments and words); else it ignores it, as the other engines do. */
  diarization?: boolean;
}

export interface LanguageDetection {
  language_code: string;
  confidence: number;
}

export interface FakeTranscriptionEngine {
  /** Base URL, e.g. `http://127.0.0.1:41234` (the engine serves `/v1/audio/transcriptions` under it). */
  url: string;
  requests: RecordedTranscriptionRequest[];
  /** Sets the answer (a result or a function of the request). */
  respondWith(result: Partial<TranscriptionResult> | TranscriptionResponder): void;
  failNext(failure?: TranscriptionFailure): void;
  /** Delays every answer by `ms` (0 to stop); the delay ends early when the client disconnects. */
  delay(ms: number): void;
  /** What `/detect-language` answers (default: the `language` field of the answer set by respondWith, else `en`, confidence 0.97). */
  detectLanguageWith(detection: LanguageDetection): void;
  /** Requests currently being answered (useful to await concurrency without timing). */
  readonly inFlight: number;
  /**
   * Requests whose headers arrived, counted before their body is read: a client that gives up
   * during its upload is counted here and not in `requests` (which holds parsed requests only).
   */
  readonly arrivals: number;
  /** Requests whose client closed the connection before the answer was sent. */
  aborted: RecordedTranscriptionRequest[];
  reset(): void;
  close(): Promise<void>;
}

export const TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';
export const ASR_PATH = '/asr';
export const DETECT_LANGUAGE_PATH = '/detect-language';

/** Whisper's language names, as `/detect-language` answers them. */
const LANGUAGE_NAMES: Record<string, string> = { en: 'english', fr: 'french', de: 'german', es: 'spanish', it: 'italian', nl: 'dutch', pt: 'portuguese', ja: 'japanese', zh: 'chinese' };

/** The default answer: words of the file name, 2 s per segment. */
export function defaultTranscription(req: RecordedTranscriptionRequest): TranscriptionResult {
  const base = (req.file?.filename ?? 'audio').replace(/\.[^.]+$/, '').replace(/[_-]+/g, ' ').trim() || 'audio';
  const text = `Transcript of ${base}.`;
  return {
    text,
    language: req.fields.language || 'en',
    duration: 2,
    segments: [{ id: 0, start: 0, end: 2, text }],
  };
}

function completeResult(partial: Partial<TranscriptionResult>, req: RecordedTranscriptionRequest): TranscriptionResult {
  const fallback = defaultTranscription(req);
  const text = partial.text ?? (partial.segments ? partial.segments.map((s) => s.text).join(' ') : fallback.text);
  const segments = partial.segments ?? [{ id: 0, start: 0, end: partial.duration ?? fallback.duration, text }];
  const duration = partial.duration ?? (segments.length ? segments[segments.length - 1].end : fallback.duration);
  return { text, language: partial.language ?? fallback.language, duration, segments, words: partial.words ?? spreadWords(segments) };
}

/** Words of each segment with times spread evenly over it (what an engine's word timestamps look like). */
export function spreadWords(segments: TranscriptionSegment[]): TranscriptionWord[] {
  return segments.flatMap((s) => {
    const given = s.words as TranscriptionWord[] | undefined;
    if (Array.isArray(given)) return given;
    const tokens = s.text.trim().split(/\s+/).filter(Boolean);
    const step = tokens.length ? (s.end - s.start) / tokens.length : 0;
    return tokens.map((word, i) => ({ word: ` ${word}`, start: round(s.start + i * step), end: round(s.start + (i + 1) * step), probability: 0.9 }));
  });
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** Splits a multipart/form-data body into text fields and files. */
export function parseMultipart(body: Buffer, contentType: string): { fields: Record<string, string>; fieldList: Array<[string, string]>; files: RecordedUpload[] } {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!match) throw new Error('multipart/form-data without boundary');
  const delimiter = Buffer.from(`--${match[1] ?? match[2]}`);
  const fields: Record<string, string> = {};
  const fieldList: Array<[string, string]> = [];
  const files: RecordedUpload[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new Error('multipart body has no boundary');
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) throw new Error('multipart body is not terminated');
    const part = body.subarray(start + 2, next - 2); // skip CRLF after the delimiter and before the next
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) throw new Error('multipart part without headers');
    const headers = part.subarray(0, headerEnd).toString('utf8');
    const data = part.subarray(headerEnd + 4);
    const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? 'application/octet-stream';
    if (name !== undefined) {
      if (filename !== undefined) files.push({ field: name, filename, contentType: type, size: data.length, data: Buffer.from(data) });
      else {
        fields[name] = data.toString('utf8');
        fieldList.push([name, fields[name]]);
      }
    }
    pos = next;
  }
  return { fields, fieldList, files };
}

function srtTime(seconds: number, sep: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(ms % 1000, 3)}`;
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function openAiError(status: number, message: string, type = 'invalid_request_error'): [number, unknown] {
  return [status, { error: { message, type, param: null, code: null } }];
}

/** The `/asr` JSON document: whisper's result dict, WhisperX's shape (speakers, `word_segments`) when diarized. */
function asrJson(result: TranscriptionResult, wordTimestamps: boolean, diarized: boolean): unknown {
  const words = result.words ?? [];
  const segments = result.segments.map((s) => {
    const segWords = words.filter((w) => w.start >= s.start && w.end <= s.end);
    const { id: _id, ...rest } = s;
    return diarized
      ? { ...rest, words: segWords }
      : { id: s.id, seek: 0, ...rest, tokens: [], temperature: 0, avg_logprob: -0.25, compression_ratio: 1.2, no_speech_prob: 0.01, ...(wordTimestamps ? { words: segWords } : {}) };
  });
  return diarized ? { segments, word_segments: words, language: result.language } : { text: result.text, segments, language: result.language };
}

/** Speakers as WhisperX assigns them: taken from the answer when it has some, else alternating SPEAKER_00 / SPEAKER_01 per segment. */
function diarize(result: TranscriptionResult, maxSpeakers: number): TranscriptionResult {
  const speakers = Math.max(1, Math.min(2, maxSpeakers));
  const segments = result.segments.map((s, i) => ({ ...s, speaker: (s.speaker as string | undefined) ?? `SPEAKER_${String(i % speakers).padStart(2, '0')}` }));
  const words = (result.words ?? []).map((w) => ({ ...w, speaker: w.speaker ?? (segments.find((s) => w.start >= s.start && w.start < s.end)?.speaker as string | undefined) }));
  return { ...result, segments, words };
}

export async function startFakeTranscriptionEngine(options: FakeTranscriptionEngineOptions = {}): Promise<FakeTranscriptionEngine> {
  const requests: RecordedTranscriptionRequest[] = [];
  const aborted: RecordedTranscriptionRequest[] = [];
  let responder: TranscriptionResponder = () => ({});
  let detection: LanguageDetection | null = null;
  const failures: Array<Required<Pick<TranscriptionFailure, 'times'>> & TranscriptionFailure> = [];
  let delayMs = 0;
  let inFlight = 0;
  let arrivals = 0;

  const readBody = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });

  const wait = (ms: number, req: IncomingMessage) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const timer = setTimeout(resolve, ms);
      req.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });

  const PATHS = [TRANSCRIPTIONS_PATH, ASR_PATH, DETECT_LANGUAGE_PATH];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { status: 'ok' });
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return send(res, 200, { object: 'list', data: (options.models ?? ['whisper-1']).map((id) => ({ id, object: 'model' })) });
    }
    if (!PATHS.includes(url.pathname)) return send(res, ...openAiError(404, `Unknown path ${url.pathname}`));
    if (req.method !== 'POST') return send(res, ...openAiError(405, `Method ${req.method} not allowed`));
    const openAi = url.pathname === TRANSCRIPTIONS_PATH;
    const fileField = openAi ? 'file' : 'audio_file';

    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    let parsed: ReturnType<typeof parseMultipart>;
    try {
      if (!/^multipart\/form-data/i.test(contentType)) throw new Error('Content-Type must be multipart/form-data');
      parsed = parseMultipart(body, contentType);
    } catch (err) {
      return send(res, ...openAiError(400, (err as Error).message));
    }
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const recorded: RecordedTranscriptionRequest = {
      method: req.method,
      path: url.pathname,
      headers: req.headers,
      apiKey: bearer,
      query: Object.fromEntries(url.searchParams),
      fields: parsed.fields,
      fieldList: parsed.fieldList,
      file: parsed.files.find((f) => f.field === fileField),
      at: Date.now(),
    };
    requests.push(recorded);
    res.once('close', () => {
      if (!res.writableFinished) aborted.push(recorded);
    });

    await wait(delayMs, req);
    if (req.socket.destroyed) return;

    const failure = failures[0];
    if (failure) {
      failure.times -= 1;
      if (failure.times <= 0) failures.shift();
      if (failure.mode === 'reset') {
        req.socket.destroy();
        return;
      }
      const status = failure.status ?? 500;
      return send(res, status, failure.body ?? openAiError(status, 'Injected failure', 'server_error')[1]);
    }

    if (options.apiKey && bearer !== options.apiKey) {
      return send(res, ...openAiError(401, 'Incorrect API key provided', 'invalid_api_key'));
    }
    if (!openAi) return handleAsr(url, recorded, res);
    if (!recorded.file) return send(res, ...openAiError(400, "Missing required parameter: 'file'"));
    if (!recorded.fields.model) return send(res, ...openAiError(400, "Missing required parameter: 'model'"));
    if (options.models && !options.models.includes(recorded.fields.model)) {
      return send(res, ...openAiError(404, `The model '${recorded.fields.model}' does not exist`, 'invalid_request_error'));
    }

    const result = completeResult(await responder(recorded), recorded);
    const format = recorded.fields.response_format || 'json';
    switch (format) {
      case 'verbose_json': {
        const granularities = recorded.fieldList.filter(([k]) => k === 'timestamp_granularities[]').map(([, v]) => v);
        const { words, ...rest } = result;
        return send(res, 200, { task: 'transcribe', ...rest, ...(granularities.includes('word') ? { words } : {}) });
      }
      case 'json':
        return send(res, 200, { text: result.text });
      case 'text':
        return send(res, 200, result.text, 'text/plain; charset=utf-8');
      case 'srt':
        return send(res, 200, srtOf(result), 'text/plain; charset=utf-8');
      case 'vtt':
        return send(res, 200, `WEBVTT\n\n${result.segments.map((s) => `${srtTime(s.start, '.')} --> ${srtTime(s.end, '.')}\n${s.text.trim()}\n`).join('\n')}`, 'text/vtt; charset=utf-8');
      default:
        return send(res, ...openAiError(400, `Unsupported response_format '${format}'`));
    }
  }

  /** whisper-asr-webservice: FastAPI's `{detail}` errors, documents as `text/plain` attachments. */
  async function handleAsr(url: URL, recorded: RecordedTranscriptionRequest, res: ServerResponse): Promise<void> {
    const q = recorded.query;
    if (!recorded.file) return send(res, 422, { detail: [{ loc: ['body', 'audio_file'], msg: 'field required', type: 'value_error.missing' }] });
    if (url.pathname === DETECT_LANGUAGE_PATH) {
      const answer = await responder(recorded);
      const found = detection ?? { language_code: answer.language ?? 'en', confidence: 0.97 };
      return send(res, 200, { detected_language: LANGUAGE_NAMES[found.language_code] ?? found.language_code, language_code: found.language_code, confidence: found.confidence });
    }
    const output = q.output ?? 'txt';
    if (!['txt', 'vtt', 'srt', 'tsv', 'json'].includes(output)) {
      return send(res, 422, { detail: [{ loc: ['query', 'output'], msg: `value is not a valid enumeration member; permitted: 'txt', 'vtt', 'srt', 'tsv', 'json'`, type: 'type_error.enum' }] });
    }
    let result = completeResult(await responder({ ...recorded, fields: { ...recorded.fields, ...(q.language ? { language: q.language } : {}) } }), recorded);
    const diarized = !!options.diarization && q.diarize === 'true';
    if (diarized) result = diarize(result, Number(q.max_speakers ?? 2) || 2);
    const documents: Record<string, () => string> = {
      txt: () => result.segments.map((s) => `${s.text.trim()}\n`).join(''),
      srt: () => srtOf(result),
      vtt: () => `WEBVTT\n\n${result.segments.map((s) => `${srtTime(s.start, '.')} --> ${srtTime(s.end, '.')}\n${s.text.trim()}\n`).join('\n')}`,
      tsv: () => `start\tend\ttext\n${result.segments.map((s) => `${Math.round(s.start * 1000)}\t${Math.round(s.end * 1000)}\t${s.text.trim()}\n`).join('')}`,
      json: () => JSON.stringify(asrJson(result, q.word_timestamps === 'true', diarized)),
    };
    const payload = documents[output]();
    res.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(payload),
      'asr-engine': diarized ? 'whisperx' : 'faster_whisper',
      'content-disposition': `attachment; filename="${encodeURIComponent(recorded.file.filename)}.${output}"`,
    });
    res.end(payload);
  }

  const srtOf = (result: TranscriptionResult) =>
    result.segments.map((s, i) => `${i + 1}\n${srtTime(s.start, ',')} --> ${srtTime(s.end, ',')}\n${s.text.trim()}\n`).join('\n');

  const server = createServer((req, res) => {
    arrivals += 1;
    inFlight += 1;
    res.on('close', () => {
      inFlight -= 1;
    });
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, ...openAiError(500, (err as Error).message, 'server_error'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    aborted,
    respondWith(result) {
      responder = typeof result === 'function' ? result : () => result;
    },
    detectLanguageWith(d) {
      detection = d;
    },
    failNext(failure = {}) {
      failures.push({ ...failure, times: failure.times ?? 1 });
    },
    delay(ms) {
      delayMs = ms;
    },
    get inFlight() {
      return inFlight;
    },
    get arrivals() {
      return arrivals;
    },
    reset() {
      arrivals = 0;
      requests.length = 0;
      aborted.length = 0;
      failures.length = 0;
      delayMs = 0;
      detection = null;
      responder = () => ({});
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
