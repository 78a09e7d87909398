// Sends one generated request over node:http, byte for byte as generated (the target's percent-
// encoding untouched), and reads the answer up to a cap.
import http from 'node:http';
import { Deep, Huge, HugeArray, RawNumber, type Body, type FuzzRequest } from './generate';

/** What the run knows when it sends: the credentials' headers and the seeded ids. */
export interface SendContext {
  credentials: Record<string, Record<string, string>>;
  ids: Record<string, string>;
}

export interface Answer {
  /** 0 when the connection ended without an answer */
  status: number;
  headers: http.IncomingHttpHeaders;
  /** up to MAX_READ bytes of the body */
  body: Buffer;
  /** the body was longer than MAX_READ (the rest was not read) */
  truncated: boolean;
  /** the connection error, when there was no answer */
  error?: string;
  /** bytes of the request line and headers sent */
  headBytes: number;
  /** bytes of the request body */
  bodyBytes: number;
  ms: number;
}

const MAX_READ = 1 << 20;

/** JSON text of a generated value, with the markers written out. */
export function toJson(value: unknown): string {
  if (value instanceof Huge) return JSON.stringify(value.unit.repeat(value.count));
  if (value instanceof RawNumber) return value.text;
  if (value instanceof HugeArray) {
    const one = toJson(value.element);
    return `[${new Array(value.count).fill(one).join(',')}]`;
  }
  if (value instanceof Deep) return value.kind === 'array' ? '['.repeat(value.depth) + ']'.repeat(value.depth) : '{"a":'.repeat(value.depth) + '1' + '}'.repeat(value.depth);
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value && typeof value === 'object') {
    // Own keys, `__proto__` included (JSON.parse turns it into a plain own property on the server).
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${toJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const BOUNDARY = '----fuzz7MA4YWxkTrZu0gW';

function renderBody(body: Body): { bytes: Buffer; contentType?: string } {
  switch (body.kind) {
    case 'json':
      return { bytes: Buffer.from(toJson(body.value), 'utf8'), contentType: body.contentType };
    case 'text':
      return { bytes: Buffer.from(body.text, 'utf8'), contentType: body.contentType };
    case 'bytes':
      return { bytes: Buffer.from(body.hex, 'hex'), contentType: body.contentType };
    case 'form':
      return { bytes: Buffer.from(body.pairs.map(([k, v]) => `${encodeURIComponentSafe(k)}=${encodeURIComponentSafe(v)}`).join('&')), contentType: body.contentType };
    case 'multipart': {
      const chunks: Buffer[] = [];
      for (const p of body.parts) {
        const disposition = `form-data; name="${p.name.replace(/"/g, '%22')}"${p.filename !== undefined ? `; filename="${p.filename.replace(/"/g, '%22')}"` : ''}`;
        chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`, 'utf8'));
        chunks.push(p.content instanceof Huge ? Buffer.alloc(Buffer.byteLength(p.content.unit) * p.content.count, p.content.unit) : Buffer.from(p.content, 'utf8'));
        chunks.push(Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
      const base = body.contentType.split(';')[0];
      return { bytes: Buffer.concat(chunks), contentType: `${base}; boundary=${BOUNDARY}` };
    }
  }
}

/** encodeURIComponent that survives lone surrogates (their UTF-8 replacement is encoded). */
function encodeURIComponentSafe(s: string): string {
  return encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'));
}

/** `{{id:name}}` replaced by the run's id of that name (an unknown name stays as written). */
export function fill(text: string, ids: Record<string, string>, encoded = true): string {
  return text.replace(/\{\{id:([^}]+)\}\}/g, (m, name: string) => (name in ids ? (encoded ? encodeURIComponent(ids[name]) : ids[name]) : m));
}

/** The request as sent: method, target, headers and body bytes. */
export function materialize(req: FuzzRequest, ctx: SendContext): { method: string; target: string; headers: Record<string, string>; body?: Buffer } {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = fill(v, ctx.ids, false);
  Object.assign(headers, ctx.credentials[req.credential] ?? {});
  let body: Buffer | undefined;
  if (req.body) {
    const rendered = renderBody(req.body);
    body = Buffer.from(fill(rendered.bytes.length < 200_000 ? rendered.bytes.toString('latin1') : '', ctx.ids, false), 'latin1');
    if (rendered.bytes.length >= 200_000) body = rendered.bytes;
    if (rendered.contentType !== undefined) headers['content-type'] = rendered.contentType;
  }
  return { method: req.method, target: fill(req.target, ctx.ids), headers, body };
}

/** Sends the request to `base` (http://host:port[/prefix]); never throws. */
export function send(base: string, req: FuzzRequest, ctx: SendContext, timeoutMs = 20_000): Promise<Answer> {
  const started = performance.now();
  const url = new URL(base);
  const m = materialize(req, ctx);
  const bodyBytes = m.body?.length ?? 0;
  const headBytes = url.pathname.length + m.target.length + Object.entries(m.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  return new Promise<Answer>((resolve) => {
    let settled = false;
    const done = (a: Omit<Answer, 'ms' | 'headBytes' | 'bodyBytes'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...a, headBytes, bodyBytes, ms: performance.now() - started });
    };
    let request: http.ClientRequest;
    try {
      request = http.request({
        host: url.hostname,
        port: url.port,
        method: m.method,
        path: `${url.pathname.replace(/\/$/, '')}${m.target}`,
        headers: { ...m.headers, ...(m.body ? { 'content-length': String(m.body.length) } : {}), connection: 'close' },
        agent: false,
        insecureHTTPParser: true,
      });
    } catch (err) {
      // Node refused to write it (a character a request line cannot hold): not the server's fault.
      resolve({ status: -1, headers: {}, body: Buffer.alloc(0), truncated: false, error: `client: ${(err as Error).message}`, headBytes, bodyBytes, ms: 0 });
      return;
    }
    const timer = setTimeout(() => {
      request.destroy();
      done({ status: 0, headers: {}, body: Buffer.alloc(0), truncated: false, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const streaming = /text\/event-stream/i.test(String(res.headers['content-type'] ?? ''));
      const finish = (truncated: boolean) => {
        res.destroy();
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated });
      };
      if (streaming) return finish(false);
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_READ) return finish(true);
        chunks.push(c);
      });
      res.on('end', () => finish(false));
      res.on('error', () => finish(false));
      res.on('close', () => finish(false));
    });
    request.on('error', (err) => done({ status: 0, headers: {}, body: Buffer.alloc(0), truncated: false, error: err.message }));
    // A server may answer (413, 401) before it read a large body: the answer wins over the write error.
    if (m.body) request.end(m.body);
    else request.end();
  });
}
