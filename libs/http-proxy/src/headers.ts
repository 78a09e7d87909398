// Header rewriting between client and upstream: hop-by-hop headers are connection-scoped (RFC 9110
// section 7.6.1) and never forwarded; the X-Forwarded-* family tells the upstream where the request
// came from and under which prefix it is published.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Copies headers without hop-by-hop ones (including those the Connection header names). */
export function stripHopByHop(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connection = headers.connection;
  const named = connection ? connection.toLowerCase().split(',').map((t) => t.trim()) : undefined;
  const out: OutgoingHttpHeaders = {};
  for (const key in headers) {
    if (HOP_BY_HOP.has(key) || (named !== undefined && named.includes(key))) continue;
    const value = headers[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export interface ForwardedInfo {
  remoteAddress: string | undefined;
  encrypted: boolean;
  /** published under this prefix (X-Forwarded-Prefix); undefined: the client's header, if any, is passed on */
  prefix?: string;
  requestId: string;
}

/** Headers for the upstream request: hop-by-hop removed, X-Forwarded-* and X-Request-Id set. */
export function upstreamRequestHeaders(headers: IncomingHttpHeaders, info: ForwardedInfo): OutgoingHttpHeaders {
  const out = stripHopByHop(headers);
  // Transfer-Encoding frames the body on this hop, but a body without Content-Length needs a framing
  // on the next hop too: keep it (Node only accepts request codings ending in chunked, which it then
  // re-applies). Without it, Node's client sends the body of a DELETE or OPTIONS unframed, and the
  // upstream would read those bytes as the next request on the pooled connection.
  if (headers['transfer-encoding'] !== undefined && headers['content-length'] === undefined) {
    out['transfer-encoding'] = headers['transfer-encoding'];
  }
  const forwardedFor = headers['x-forwarded-for'];
  const client = info.remoteAddress ?? 'unknown';
  out['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${client}` : client;
  out['x-forwarded-proto'] = headers['x-forwarded-proto'] ?? (info.encrypted ? 'https' : 'http');
  out['x-forwarded-host'] = headers['x-forwarded-host'] ?? headers.host ?? '';
  if (info.prefix !== undefined) {
    const outerPrefix = headers['x-forwarded-prefix'];
    out['x-forwarded-prefix'] = typeof outerPrefix === 'string' ? `${outerPrefix.replace(/\/+$/, '')}${info.prefix}` : info.prefix;
  }
  out['x-request-id'] = info.requestId;
  return out;
}
