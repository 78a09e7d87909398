import type { IncomingMessage } from 'node:http';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Longest prefix believed; a longer header is ignored. */
const MAX_PREFIX_LENGTH = 200;
/** One or more path segments of unreserved characters (RFC 3986), such as `/auth` or `/edge/auth`. */
const PREFIX = /^(?:\/[A-Za-z0-9._~-]+)+\/?$/;

/**
 * The path prefix under which a proxy (the gateway) publishes this app, from `X-Forwarded-Prefix`:
 * `/auth` for `/auth` or `/auth/`. Anything that is not a plain path (a URL, a query, `..`, spaces,
 * several values) is ignored: undefined, as without the header.
 */
export function forwardedPrefix(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const value = req.headers['x-forwarded-prefix'];
  if (typeof value !== 'string' || value.length > MAX_PREFIX_LENGTH || !PREFIX.test(value)) return undefined;
  const prefix = value.replace(/\/$/, '');
  if (prefix.split('/').some((segment) => segment === '.' || segment === '..')) return undefined;
  return prefix;
}

/**
 * The document as served to one request: `servers` is the forwarded prefix (a path, resolved by
 * Swagger UI against the page's own origin, so "Try it out" goes through the same proxy), or `/`
 * without one. The shared document is never changed.
 */
export function documentForRequest(document: OpenAPIObject, req: Pick<IncomingMessage, 'headers'>): OpenAPIObject {
  const prefix = forwardedPrefix(req);
  return { ...document, servers: [{ url: prefix ?? '/' }] };
}
