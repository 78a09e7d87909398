// The verdict on one answer: a 5xx (or no answer) is a failure; an error (4xx) must be JSON in the
// shape the operation documents for that status, else in the service's own error shape, and small.
import { documentedSchema, schemaProblems, type Operation, type Schema } from './openapi';
import type { Answer } from './send';

/** The error shapes of the platform's filters (libs/errors and the apps' own). */
export type ErrorShape = 'plain' | 'detail' | 'envelope' | 'gateway' | 'problem' | 'jsonrpc';

const STRING = { type: 'string' };
export const ERROR_SHAPES: Record<ErrorShape, Schema> = {
  // doc 1 and part A: {error}
  plain: { type: 'object', required: ['error'], properties: { error: STRING } },
  // part B and the transcription service: {detail}
  detail: { type: 'object', required: ['detail'], properties: { detail: STRING } },
  // doc 2, part C, part F: {success: false, error: {code, message, statusCode, requestId, errors?, suggestion}, timestamp}
  envelope: {
    type: 'object',
    required: ['success', 'error', 'timestamp'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: { type: 'object', required: ['code', 'message', 'statusCode', 'requestId'], properties: { code: STRING, message: STRING, statusCode: { type: 'integer' }, requestId: STRING, errors: { type: 'array' } } },
      timestamp: STRING,
    },
  },
  // RFC 7807 problem details (autostart-proxy's Sablier API)
  problem: { type: 'object', required: ['title', 'status'], properties: { type: STRING, title: STRING, status: { type: 'integer' }, detail: STRING } },
  // JSON-RPC 2.0 errors (the MCP transports)
  jsonrpc: { type: 'object', required: ['jsonrpc', 'error'], properties: { jsonrpc: { type: 'string', enum: ['2.0'] }, error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: STRING } } } },
  // the gateway's own: {statusCode, error, message}
  gateway: { type: 'object', required: ['statusCode', 'error', 'message'], properties: { statusCode: { type: 'integer' }, error: STRING, message: STRING } },
};

/** A Node stack frame (`    at fn (/path/file.js:1:2)`, after a newline or a JSON-escaped one): never in an answer. */
const STACK_TRACE = /(\n|\\n)\s+at .+[(/].+:\d+:\d+/;

/** The largest error body accepted: an error never echoes a large input back. */
export const MAX_ERROR_BYTES = 16 * 1024;

export type Verdict =
  | { ok: true; klass: '2xx' | '3xx' | '4xx' | '5xx-documented' | 'parser' | 'early-close' }
  | { ok: false; klass: '5xx' | 'no-answer' | 'shape' | 'size'; problem: string };

/** Statuses a service may answer when an outside system it depends on is missing or failing, if the operation documents them. */
const UPSTREAM_STATUSES = new Set([502, 503, 504, 507]);

export function judge(op: Operation | undefined, shape: ErrorShape, answer: Answer, method = op?.method ?? 'GET', extra?: ErrorShape[]): Verdict {
  // Over Node's 16 kB head limit the parser answers 431 and closes at once: a client still writing its
  // body then reads a reset before the answer.
  if (answer.status === 0 && answer.headBytes > 16 * 1024 && /ECONNRESET|EPIPE/.test(answer.error ?? '')) return { ok: true, klass: 'parser' };
  // A server that refuses a large body before reading it (401, 413) answers and closes: Node's client,
  // still writing, sees the reset (EPIPE) and drops the answer. Counted apart; a crash would show as the process's exit.
  if (answer.status === 0 && answer.bodyBytes > 1024 * 1024 && /ECONNRESET|EPIPE/.test(answer.error ?? '')) return { ok: true, klass: 'early-close' };
  if (answer.status === 0) return { ok: false, klass: 'no-answer', problem: `no answer: ${answer.error ?? 'connection closed'}` };
  if (answer.status >= 500) {
    if (op && UPSTREAM_STATUSES.has(answer.status) && op.responses[String(answer.status)]) return { ok: true, klass: '5xx-documented' };
    return { ok: false, klass: '5xx', problem: `answered ${answer.status}: ${answer.body.toString('utf8', 0, 300)}` };
  }
  if (answer.status < 300) return { ok: true, klass: '2xx' };
  if (answer.status < 400) return { ok: true, klass: '3xx' };
  // Node's HTTP parser answers a request it cannot parse (a head over 16 kB: 431; a broken request
  // line: 400) itself, before any code of the service runs, with an empty body and the connection closed.
  if ((answer.status === 431 || answer.status === 400) && answer.body.length === 0 && !answer.headers['content-type']) return { ok: true, klass: 'parser' };
  if (answer.truncated || answer.body.length > MAX_ERROR_BYTES) return { ok: false, klass: 'size', problem: `a ${answer.status} of ${answer.truncated ? 'more than 1 MB' : `${answer.body.length} bytes`}` };
  // A HEAD answer has no body to judge.
  if (method === 'HEAD') return { ok: true, klass: '4xx' };
  const doc = op ? documentedSchema(op, answer.status) : { documented: false, contentTypes: [] as string[] };
  const contentType = String(answer.headers['content-type'] ?? '');
  const typeDocumented = doc.contentTypes.some((ct) => contentType.startsWith(ct.split(';')[0]));
  // A page (an operation whose success is HTML only) shows its errors as pages too, for the browser that opened it.
  const page = op && Object.entries(op.responses).some(([s, c]) => s.startsWith('2') && Object.keys(c).length > 0 && Object.keys(c).every((ct) => /html/i.test(ct)));
  if (!/json/i.test(contentType)) {
    if ((doc.documented && typeDocumented) || (page && /html/i.test(contentType))) return { ok: true, klass: '4xx' };
    return { ok: false, klass: 'shape', problem: `a ${answer.status} as ${contentType || 'no content type'}: ${answer.body.toString('utf8', 0, 120)}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return { ok: false, klass: 'shape', problem: `a ${answer.status} whose body is not JSON: ${answer.body.toString('utf8', 0, 120)}` };
  }
  if (STACK_TRACE.test(answer.body.toString('utf8'))) return { ok: false, klass: 'shape', problem: `a ${answer.status} with a stack trace: ${answer.body.toString('utf8', 0, 300)}` };
  // The service's error shape (or the one its description gives these paths), or the operation's documented schema for this status.
  const shapes = [shape, ...(extra ?? [])];
  const own = schemaProblems(ERROR_SHAPES[shape], parsed);
  if (shapes.some((s) => schemaProblems(ERROR_SHAPES[s], parsed).length === 0)) return { ok: true, klass: '4xx' };
  if (doc.schema && schemaProblems(doc.schema, parsed).length === 0) return { ok: true, klass: '4xx' };
  return { ok: false, klass: 'shape', problem: `a ${answer.status} not in the ${shape} error shape (${own.slice(0, 3).join('; ')}): ${answer.body.toString('utf8', 0, 200)}` };
}
