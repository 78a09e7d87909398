import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible speech-to-text engine (`POST /v1/audio/transcriptions`, as served by
 * whisper.cpp / faster-whisper servers) for transcribe-api tests: node:http on 127.0.0.1, port 0.
 * It parses the multipart upload, records every request, and answers per `response_format`:
 * `json` (the default, `{text}`), `verbose_json` (text, language, duration, segments), `text`, `srt`, `vtt`. Failures and delays can be injected.
 *
 *   const engine = await startFakeTranscriptionEngine();
 *   // WHISPER_URL = engine.url
 *   engine.respondWith({ text: 'hello world', language: 'en' });
 *   engine.failNext({ status: 503 });     // the next request answers 503
 *   engine.delay(500);                    // every answer waits 500 ms
 *   expect(engine.requests[0].fields.model).toBe('whisper-1');
 *   await engine.close();
 */

export interface TranscriptionSegment {
  id: number;
  start: number;
  end: number;
  text: string;
}

export interface TranscriptionResult {
  text: string;
  language: string;
  duration: number;
  segments: TranscriptionSegment[];
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
  /** Text fields of the multipart body (model, language, response_format, prompt, temperature…). */
  fields: Record<string, string>;
  /** The uploaded file (`file` field), when one was sent. */
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
  /** Requests currently being answered (useful to await concurrency without timing). */
  readonly inFlight: number;
  reset(): void;
  close(): Promise<void>;
}

export const TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';

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
  return { text, language: partial.language ?? fallback.language, duration, segments };
}

/** Splits a multipart/form-data body into text fields and files. */
export function parseMultipart(body: Buffer, contentType: string): { fields: Record<string, string>; files: RecordedUpload[] } {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!match) throw new Error('multipart/form-data without boundary');
  const delimiter = Buffer.from(`--${match[1] ?? match[2]}`);
  const fields: Record<string, string> = {};
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
      else fields[name] = data.toString('utf8');
    }
    pos = next;
  }
  return { fields, files };
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

export async function startFakeTranscriptionEngine(options: FakeTranscriptionEngineOptions = {}): Promise<FakeTranscriptionEngine> {
  const requests: RecordedTranscriptionRequest[] = [];
  let responder: TranscriptionResponder = () => ({});
  const failures: Array<Required<Pick<TranscriptionFailure, 'times'>> & TranscriptionFailure> = [];
  let delayMs = 0;
  let inFlight = 0;

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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { status: 'ok' });
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return send(res, 200, { object: 'list', data: (options.models ?? ['whisper-1']).map((id) => ({ id, object: 'model' })) });
    }
    if (url.pathname !== TRANSCRIPTIONS_PATH) return send(res, ...openAiError(404, `Unknown path ${url.pathname}`));
    if (req.method !== 'POST') return send(res, ...openAiError(405, `Method ${req.method} not allowed`));

    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    let parsed: ReturnType<typeof parseMultipart>;
    try {
      if (!/^multipart\/form-data/i.test(contentType)) throw new Error('Content-Type must be multipart/form-data');
      parsed = parseMultipart(body, contentType);
    } catch (err) {
      return send(res, ...openAiError(400, (err as Error).message));
    }
    const recorded: RecordedTranscriptionRequest = {
      method: req.method,
      path: url.pathname,
      headers: req.headers,
      fields: parsed.fields,
      file: parsed.files.find((f) => f.field === 'file'),
      at: Date.now(),
    };
    requests.push(recorded);

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

    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(res, ...openAiError(401, 'Incorrect API key provided', 'invalid_api_key'));
    }
    if (!recorded.file) return send(res, ...openAiError(400, "Missing required parameter: 'file'"));
    if (!recorded.fields.model) return send(res, ...openAiError(400, "Missing required parameter: 'model'"));
    if (options.models && !options.models.includes(recorded.fields.model)) {
      return send(res, ...openAiError(404, `The model '${recorded.fields.model}' does not exist`, 'invalid_request_error'));
    }

    const result = completeResult(await responder(recorded), recorded);
    const format = recorded.fields.response_format || 'json';
    switch (format) {
      case 'verbose_json':
        return send(res, 200, { task: 'transcribe', ...result });
      case 'json':
        return send(res, 200, { text: result.text });
      case 'text':
        return send(res, 200, result.text, 'text/plain; charset=utf-8');
      case 'srt':
        return send(
          res,
          200,
          result.segments.map((s, i) => `${i + 1}\n${srtTime(s.start, ',')} --> ${srtTime(s.end, ',')}\n${s.text.trim()}\n`).join('\n'),
          'text/plain; charset=utf-8',
        );
      case 'vtt':
        return send(
          res,
          200,
          `WEBVTT\n\n${result.segments.map((s) => `${srtTime(s.start, '.')} --> ${srtTime(s.end, '.')}\n${s.text.trim()}\n`).join('\n')}`,
          'text/vtt; charset=utf-8',
        );
      default:
        return send(res, ...openAiError(400, `Unsupported response_format '${format}'`));
    }
  }

  const server = createServer((req, res) => {
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
    respondWith(result) {
      responder = typeof result === 'function' ? result : () => result;
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
    reset() {
      requests.length = 0;
      failures.length = 0;
      delayMs = 0;
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
