import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';

/**
 * The answers of the raw routes (clicks/click-raw-route.ts, webhooks/webhook-raw-route.ts) as
 * Express's `res.redirect` and `res.send` write them, byte for byte, without their per-request
 * work: content negotiation and Content-Type parsing (answered from a small cache by Accept header),
 * the ETag of a body that never changes (computed once per app). Anything unusual about the
 * response (a header these set already present) is left to Express itself.
 */

/** escape-html, as Express's `res.redirect` escapes the address in its HTML body. */
const HTML_ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;' };
const escapeHtml = (text: string) => text.replace(/["&'<>]/g, (c) => HTML_ESCAPES[c]);

/** Content types of `res.format`'s keys, as Express's `res.set('Content-Type', …)` spells them. */
const FORMAT_TYPES = { text: 'text/plain; charset=utf-8', html: 'text/html; charset=utf-8' } as const;
type RedirectFormat = keyof typeof FORMAT_TYPES | false;

/** Distinct Accept headers remembered at most (clients send few). */
const ACCEPTS_CACHED = 256;
const formats = new Map<string | undefined, RedirectFormat>();

/** `res.format`'s choice between text and HTML for this request's Accept header (`req.accepts`, remembered). */
function redirectFormat(req: Request): RedirectFormat {
  const accept = req.headers.accept;
  let format = formats.get(accept);
  if (format === undefined) {
    format = (req.accepts(['text', 'html']) as RedirectFormat) || false;
    if (formats.size >= ACCEPTS_CACHED) formats.clear();
    formats.set(accept, format);
  }
  return format;
}

/** Express's `res.redirect(status, url)`. */
export function redirect(req: Request, res: Response, status: number, url: string): void {
  if (res.hasHeader('Vary') || res.hasHeader('Content-Type') || res.hasHeader('Content-Length')) {
    res.redirect(status, url);
    return;
  }
  const address = res.location(url).get('Location') as string;
  const format = redirectFormat(req);
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
}

/** A Content-Type that Express's `res.send` writes back as it is (its charset already utf-8, the only parameter). */
const SIMPLE_UTF8_TYPE = /^[a-z]+\/[a-z0-9.+-]+; charset=utf-8$/;

/**
 * Express's `res.send(text)` of a fixed UTF-8 body with the Content-Type `type` already set (a
 * charset included), for a POST answered 200: never "fresh", so never a 304. The ETag (the app's
 * `etag fn`, or none) is computed once per app.
 */
export function fixedTextAnswer(text: string): (req: Request, res: Response) => void {
  const body = Buffer.from(text, 'utf8');
  const length = String(body.length);
  let etag: string | null | undefined;
  return (req, res) => {
    const type = res.getHeader('Content-Type');
    if (req.method !== 'POST' || res.statusCode !== 200 || typeof type !== 'string' || !SIMPLE_UTF8_TYPE.test(type) || res.hasHeader('ETag') || res.hasHeader('Content-Length')) {
      res.send(text);
      return;
    }
    if (etag === undefined) {
      const etagFn = res.app.get('etag fn') as ((body: Buffer, encoding?: string) => string | undefined) | undefined;
      etag = typeof etagFn === 'function' ? (etagFn(body, undefined) ?? null) : null;
    }
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', length);
    if (etag) res.setHeader('ETag', etag);
    res.end(body);
  };
}
