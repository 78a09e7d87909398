import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';

/**
 * The modules Express itself answers with, loaded from Express's own dependencies (not the
 * project's): `res.location`'s URL encoding, `req.accepts`' negotiation and `req.ip`'s walk of
 * X-Forwarded-For are then Express's to the byte, whatever versions Express brings.
 */
const fromExpress = createRequire(require.resolve('express'));
const encodeUrl = fromExpress('encodeurl') as (url: string) => string;
const accepts = fromExpress('accepts') as (req: { headers: IncomingHttpHeaders }) => { types(types: string[]): string | false };
const proxyAddr = fromExpress('proxy-addr') as (req: IncomingMessage, trust: (addr: string, i: number) => boolean) => string | undefined;

/** The settings of an Express app these answers read (`app.get`). */
export interface ExpressSettings {
  get(setting: string): unknown;
}

/** escape-html, as Express's `res.redirect` escapes the address in its HTML body. */
const HTML_ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;' };
const escapeHtml = (text: string) => text.replace(/["&'<>]/g, (c) => HTML_ESCAPES[c]);

/** Content types of `res.format`'s keys, as Express's `res.set('Content-Type', …)` spells them. */
const FORMAT_TYPES = { text: 'text/plain; charset=utf-8', html: 'text/html; charset=utf-8' } as const;
type RedirectFormat = keyof typeof FORMAT_TYPES | false;
/** Distinct Accept headers remembered at most (clients send few). */
const ACCEPTS_CACHED = 256;

/** A Content-Type that Express's `res.send` of a string writes back as it is (its charset already utf-8, the only parameter). */
const UTF8_TYPE = /^[a-z]+\/[a-z0-9.+-]+; charset=utf-8$/;
/** A bare type (no parameter) to which Express's `res.send` of a string adds `; charset=utf-8`. */
const BARE_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/;

/**
 * Express's answers — `res.redirect`, `res.json`, `res.send` of a string — written on a plain Node
 * request and response, byte for byte as Express writes them for the same app, without giving the
 * request and response Express's prototypes first (`Object.setPrototypeOf` on Node's objects makes
 * every later property access on them slower: a tenth to a third of a light route's throughput,
 * README's Performance section). Each answers false, having written nothing, where Express would
 * do something these do not: a header they set is there already, a status with special rules (204,
 * 205, 304), a GET or HEAD whose freshness Express would check, JSON settings other than the
 * defaults. The caller then answers with Express's own method.
 */
export class ExpressAnswers {
  private readonly formats = new Map<string | undefined, RedirectFormat>();
  private lastTagged?: { text: string; etagFn: unknown; etag: string | undefined };

  constructor(private readonly app: ExpressSettings) {}

  /** The client's address as Express's `req.ip` gives it (the socket's peer, then X-Forwarded-For as far as `trust proxy` trusts). */
  ip(req: IncomingMessage): string | undefined {
    return proxyAddr(req, this.app.get('trust proxy fn') as (addr: string, i: number) => boolean);
  }

  /** Express's `res.redirect(status, url)`. */
  redirect(req: IncomingMessage, res: ServerResponse, status: number, url: string): boolean {
    if (res.hasHeader('Vary') || res.hasHeader('Content-Type') || res.hasHeader('Content-Length')) return false;
    const address = encodeUrl(url);
    const format = this.redirectFormat(req.headers.accept);
    res.setHeader('Location', address);
    res.setHeader('Vary', 'Accept');
    let body = '';
    if (format) {
      res.setHeader('Content-Type', FORMAT_TYPES[format]);
      body = format === 'text' ? `${STATUS_CODES[status]}. Redirecting to ${address}` : `<p>${STATUS_CODES[status]}. Redirecting to ${escapeHtml(address)}</p>`;
    }
    res.statusCode = status;
    res.setHeader('Content-Length', String(Buffer.byteLength(body)));
    if (req.method === 'HEAD') res.end();
    else res.end(body);
    return true;
  }

  /** Express's `res.status(status).json(body)`. */
  json(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): boolean {
    if (this.app.get('json replacer') !== undefined || this.app.get('json spaces') !== undefined || this.app.get('json escape')) return false;
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return false;
    const type = res.getHeader('Content-Type');
    return this.send(req, res, status, text, type === undefined ? 'application/json' : type);
  }

  /** Express's `res.status(status).send(text)`, the response's Content-Type `type` (set here). */
  send(req: IncomingMessage, res: ServerResponse, status: number, text: string, type: unknown): boolean {
    if (req.method === 'GET' || req.method === 'HEAD' || status === 204 || status === 205 || status === 304) return false;
    if (typeof type !== 'string' || res.hasHeader('ETag') || res.hasHeader('Content-Length')) return false;
    const contentType = UTF8_TYPE.test(type) ? type : BARE_TYPE.test(type) ? `${type}; charset=utf-8` : null;
    if (contentType === null) return false;
    const etagFn = this.app.get('etag fn') as ((body: Buffer, encoding?: string) => string | undefined) | undefined;
    const chunk = typeof etagFn === 'function' ? Buffer.from(text, 'utf8') : text;
    res.statusCode = status;
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Length', String(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length));
    if (typeof etagFn === 'function') {
      // A route answering the same body again (a fixed acknowledgement) reuses its tag.
      if (this.lastTagged?.text !== text || this.lastTagged.etagFn !== etagFn) this.lastTagged = { text, etagFn, etag: etagFn(chunk as Buffer, undefined) };
      if (this.lastTagged.etag) res.setHeader('ETag', this.lastTagged.etag);
    }
    res.end(chunk);
    return true;
  }

  /** `res.format`'s choice between text and HTML for this Accept header (`req.accepts`, remembered). */
  private redirectFormat(accept: string | undefined): RedirectFormat {
    let format = this.formats.get(accept);
    if (format === undefined) {
      format = (accepts({ headers: accept === undefined ? {} : { accept } }).types(['text', 'html']) as RedirectFormat) || false;
      if (this.formats.size >= ACCEPTS_CACHED) this.formats.clear();
      this.formats.set(accept, format);
    }
    return format;
  }
}
