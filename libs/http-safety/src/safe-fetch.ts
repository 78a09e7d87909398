import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { Agent, buildConnector } from 'undici';
import { HttpSafetyError } from './errors';
import { LookupFn, ResolvedAddress, resolveHost, systemLookup } from './lookup';
import { ResolvePolicy, assertAllowedAddress, assertPublicUrl } from './url';

export interface SafeFetchOptions extends ResolvePolicy {
  /** Redirects followed, each hop checked again. Default 5. */
  maxRedirects?: number;
  /** `follow` (default), `manual` (return the 3xx as is) or `error` (a redirect is a failure). */
  redirect?: 'follow' | 'manual' | 'error';
  /** TCP (+TLS) connect deadline per address. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** From request sent to response headers received. Default 10000 ms. */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks. Default 10000 ms. */
  bodyTimeoutMs?: number;
  /** Whole exchange, redirects included. Default 30000 ms. */
  timeoutMs?: number;
  /** Response body cap: the transfer is aborted beyond it. Default 10 MiB. */
  maxBytes?: number;
  /**
   * Further attempts of an idempotent request (GET, HEAD, OPTIONS, PUT, DELETE) after a 429, 502,
   * 503 or 504 answer or a refused/reset connection, never after a timeout, all within `timeoutMs`.
   * Default 0 (none): a POST is never retried.
   */
  retries?: number;
  /** Delay before the first retry, doubled for each next one (±20 % jitter); a `Retry-After` in seconds wins, up to `maxRetryDelayMs`. Default 250 ms. */
  retryDelayMs?: number;
  /** Cap of the retry delay. Default 5000 ms. */
  maxRetryDelayMs?: number;
}

export interface SafeFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array;
  /** Cancels the request (the caller's own abort, reported as is). */
  signal?: AbortSignal;
}

export interface SafeResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  ok: boolean;
  headers: Headers;
  /** Every URL that answered with a redirect, in order. */
  redirects: string[];
  /** Attempts made (more than 1 when `retries` retried a failed one). */
  attempts?: number;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];
const RETRYABLE_CONNECT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/**
 * An undici connector that resolves the host itself, refuses the connection unless every
 * resolved address is allowed, then connects to the vetted IP while keeping the original name for
 * SNI and certificate checks (undici keeps the original Host header). The check happens for every
 * new connection, so a DNS answer that changes after validation (rebinding) is caught here.
 */
export function createSafeConnector(
  opts: { allowPrivate?: boolean; lookup?: LookupFn; dnsTimeoutMs?: number; connectTimeoutMs?: number } = {},
): buildConnector.connector {
  const base = buildConnector({ timeout: opts.connectTimeoutMs ?? 5000 });
  const lookup = opts.lookup ?? systemLookup;
  const policy = { allowPrivate: opts.allowPrivate };
  return (options, callback) => {
    const name = options.hostname.replace(/^\[|\]$/g, '');
    resolveHost(name, lookup, opts.dnsTimeoutMs ?? 5000).then(
      (addresses: ResolvedAddress[]) => {
        try {
          for (const { address } of addresses) assertAllowedAddress(address, name, policy);
        } catch (err) {
          callback(err as Error, null);
          return;
        }
        const servername = isIP(name) ? options.servername : options.servername || name;
        const attempt = (i: number) => {
          base({ ...options, hostname: addresses[i].address, servername }, (err, socket) => {
            if (err) {
              const code = (err as NodeJS.ErrnoException).code ?? '';
              if (i + 1 < addresses.length && RETRYABLE_CONNECT.has(code)) attempt(i + 1);
              else callback(err, null);
              return;
            }
            // Belt and braces: the peer must be the address that was vetted.
            const peer = socket?.remoteAddress;
            if (peer && !isAllowedPeer(peer, policy)) {
              socket?.destroy();
              callback(new HttpSafetyError('BLOCKED_ADDRESS', `${name} connected to ${peer}, which is not allowed`), null);
              return;
            }
            callback(null, socket as NonNullable<typeof socket>);
          });
        };
        attempt(0);
      },
      (err: Error) => callback(err, null),
    );
  };
}

function isAllowedPeer(peer: string, policy: { allowPrivate?: boolean }): boolean {
  try {
    assertAllowedAddress(peer, peer, policy);
    return true;
  } catch {
    return false;
  }
}

/**
 * An HTTP client for customer-given URLs, keeping connections to vetted addresses alive between
 * calls (a crawler makes one per crawl). Close it when done.
 */
export class SafeHttpClient {
  private readonly agent: Agent;

  constructor(private readonly options: SafeFetchOptions = {}) {
    this.agent = new Agent({
      connect: createSafeConnector({
        allowPrivate: options.allowPrivate,
        lookup: options.lookup,
        dnsTimeoutMs: options.dnsTimeoutMs,
        connectTimeoutMs: options.connectTimeoutMs,
      }),
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    });
  }

  async fetch(input: string | URL, init: SafeFetchInit = {}): Promise<SafeResponse> {
    const opts = this.options;
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    try {
      return await this.withRetries(input, init, signal, Date.now() + timeoutMs);
    } catch (err) {
      if (deadline.signal.aborted && !init.signal?.aborted) {
        throw new HttpSafetyError('TIMEOUT', `${hostOf(input)} did not answer within ${timeoutMs} ms`, { cause: err });
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** `follow`, again after a transient failure of an idempotent request (`retries`), while the deadline allows. */
  private async withRetries(input: string | URL, init: SafeFetchInit, signal: AbortSignal, deadline: number): Promise<SafeResponse> {
    const opts = this.options;
    const retries = IDEMPOTENT.has((init.method ?? 'GET').toUpperCase()) ? (opts.retries ?? 0) : 0;
    for (let attempt = 1; ; attempt++) {
      let res: SafeResponse | undefined;
      let failure: unknown;
      try {
        res = await this.follow(input, init, signal);
        res.attempts = attempt;
      } catch (err) {
        failure = err;
      }
      const transient = res ? RETRY_STATUSES.has(res.status) : failure instanceof HttpSafetyError && failure.code === 'NETWORK_ERROR';
      const delay = this.retryDelay(attempt, res);
      if (!transient || attempt > retries || Date.now() + delay >= deadline || signal.aborted) {
        if (res) return res;
        throw failure;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  private retryDelay(attempt: number, res?: SafeResponse): number {
    const max = this.options.maxRetryDelayMs ?? 5000;
    const retryAfter = Number(res?.headers.get('retry-after'));
    if (Number.isFinite(retryAfter) && retryAfter >= 0 && res?.headers.has('retry-after')) return Math.min(max, retryAfter * 1000);
    const base = Math.min(max, (this.options.retryDelayMs ?? 250) * 2 ** (attempt - 1));
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  private async follow(input: string | URL, init: SafeFetchInit, signal: AbortSignal): Promise<SafeResponse> {
    const opts = this.options;
    const maxRedirects = opts.maxRedirects ?? 5;
    let url = assertPublicUrl(input, opts);
    let method = (init.method ?? 'GET').toUpperCase();
    let headers: Record<string, string> = Object.fromEntries(
      Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    );
    let body = init.body;
    const redirects: string[] = [];

    for (;;) {
      const res = await this.send(url, method, headers, body, signal);
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || !location || opts.redirect === 'manual') {
        const data = await readCapped(res.body, opts.maxBytes ?? 10 * 1024 * 1024, url, res.headers);
        return response(url, res.status, res.headers, redirects, data);
      }
      discard(res.body);
      if (opts.redirect === 'error') {
        throw new HttpSafetyError('TOO_MANY_REDIRECTS', `${url.host} answered with a redirect, which is not allowed here`);
      }
      if (redirects.length >= maxRedirects) {
        throw new HttpSafetyError('TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects starting at ${redirects[0] ?? url.href}`);
      }
      redirects.push(url.href);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new HttpSafetyError('INVALID_URL', `${url.host} redirected to an invalid location "${location.slice(0, 200)}"`);
      }
      next = assertPublicUrl(next, opts);
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        headers = omit(headers, BODY_HEADERS);
      }
      if (next.origin !== url.origin) headers = omit(headers, CREDENTIAL_HEADERS);
      url = next;
    }
  }

  private async send(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: SafeFetchInit['body'],
    signal: AbortSignal,
  ): Promise<{ status: number; headers: Headers; body: Readable }> {
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as 'GET',
        headers,
        body,
        signal,
      });
      return { status: res.statusCode, headers: toHeaders(res.headers), body: res.body };
    } catch (err) {
      throw translate(err, url);
    }
  }
}

/**
 * One request to a customer-given URL under the rules of this lib (see SafeFetchOptions): the
 * address rule at connection time, redirects re-checked, timeouts and a body size cap.
 */
export async function safeFetch(
  input: string | URL,
  init: SafeFetchInit = {},
  options: SafeFetchOptions = {},
): Promise<SafeResponse> {
  const client = new SafeHttpClient(options);
  try {
    return await client.fetch(input, init);
  } finally {
    await client.close();
  }
}

async function readCapped(stream: Readable, maxBytes: number, url: URL, headers: Headers): Promise<Buffer> {
  const tooLarge = () =>
    new HttpSafetyError('RESPONSE_TOO_LARGE', `the response of ${url.host} is larger than ${maxBytes} bytes`);
  const declared = Number(headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(stream);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        discard(stream);
        throw tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    throw translate(err, url);
  }
  return Buffer.concat(chunks);
}

/** Ends a response body we do not read (undici reports an unread destroyed body as an abort). */
function discard(stream: Readable): void {
  stream.on('error', () => undefined);
  stream.destroy();
}

function translate(err: unknown, url: URL): Error {
  if (err instanceof HttpSafetyError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') return e;
  if (e?.code && TIMEOUT_CODES.has(e.code)) {
    return new HttpSafetyError('TIMEOUT', `${url.host} timed out (${e.message})`, { cause: err });
  }
  return new HttpSafetyError('NETWORK_ERROR', `${url.host} could not be reached (${e?.code ?? e?.message})`, {
    cause: err,
  });
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

function omit(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
}

function hostOf(input: string | URL): string {
  try {
    return new URL(String(input)).host;
  } catch {
    return String(input);
  }
}

function response(url: URL, status: number, headers: Headers, redirects: string[], body: Buffer): SafeResponse {
  return {
    url: url.href,
    status,
    ok: status >= 200 && status < 300,
    headers,
    redirects,
    body,
    text: () => body.toString('utf8'),
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
  };
}
