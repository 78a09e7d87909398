// The proxy's own answers to a request for a managed service that is not ready: the waiting page
// (dynamic), 202 with Retry-After (async), the error of a failed start, 404 for an unknown host.
// Plain functions over node:http, used on the hot path without Express.
import { pageSecurityHeaders } from '@platform/platform';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ManagedService } from '../catalog/catalog';
import { renderErrorPage, renderWaitingPage } from '../waiting/themes';

/** The async 202 body (spec E): `{status: "starting", message, service, estimatedTime, retryAfter, healthCheckUrl}`. */
export interface StartingBody {
  status: 'starting';
  message: string;
  service: string;
  estimatedTime: number;
  retryAfter: number;
  healthCheckUrl: string;
}

const NO_STORE = 'no-store, no-cache, must-revalidate';

/** Seconds still expected: the estimate minus what has passed since the start began, at least 1. */
export function retryAfterSeconds(service: ManagedService, since: Date, now: number): number {
  const elapsed = Math.max(0, (now - since.getTime()) / 1000);
  return Math.max(1, Math.ceil(service.estimatedTime - elapsed));
}

/** The proxy's health URL for the host the client used (absolute, as the client reached the proxy). */
export function healthUrlOf(req: IncomingMessage, hostname: string): string {
  const forwardedHost = firstValue(req.headers['x-forwarded-host']);
  const host = forwardedHost ?? req.headers.host ?? hostname;
  const proto = firstValue(req.headers['x-forwarded-proto']) ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  return `${proto}://${host}/health/${hostname}`;
}

export function startingBody(service: ManagedService, retryAfter: number, healthCheckUrl: string): StartingBody {
  return {
    status: 'starting',
    message: `${service.name} is starting; retry in ${retryAfter} s or poll healthCheckUrl until it answers ready`,
    service: service.name,
    estimatedTime: service.estimatedTime,
    retryAfter,
    healthCheckUrl,
  };
}

/** Browsers (and clients that ask for nothing in particular) get the page; API clients asking for JSON get 202. */
export function wantsPage(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (!accept) return true;
  return accept.includes('text/html') || !accept.includes('json');
}

export function sendWaiting(req: IncomingMessage, res: ServerResponse, service: ManagedService, hostname: string, retryAfter: number, refreshSeconds: number): void {
  const healthUrl = `/health/${hostname}`;
  if (service.mode === 'dynamic' && wantsPage(req)) {
    const html = renderWaitingPage({ service: service.name, hostname, theme: service.theme, estimatedTime: service.estimatedTime, refreshSeconds, healthUrl });
    send(res, 200, 'text/html; charset=utf-8', html, { 'retry-after': String(retryAfter), 'x-autostart-status': 'starting' });
    return;
  }
  const body = JSON.stringify(startingBody(service, retryAfter, healthUrlOf(req, hostname)));
  send(res, 202, 'application/json; charset=utf-8', body, { 'retry-after': String(retryAfter), 'x-autostart-status': 'starting' });
}

/** A waiting page rendered elsewhere (a custom theme): 200, not cached. */
export function sendPage(res: ServerResponse, html: string, retryAfter: number): void {
  send(res, 200, 'text/html; charset=utf-8', html, { 'retry-after': String(retryAfter), 'x-autostart-status': 'starting' });
}

/** A start that failed: 502 with the reason; the next request starts the service again. */
export function sendFailed(req: IncomingMessage, res: ServerResponse, service: ManagedService, error: string): void {
  if (service.mode === 'dynamic' && wantsPage(req)) {
    send(res, 502, 'text/html; charset=utf-8', renderErrorPage({ service: service.name, theme: service.theme, reason: error }), { 'x-autostart-status': 'failed' });
    return;
  }
  const body = JSON.stringify({
    status: 'failed',
    message: `${service.name} could not be started; the next request tries again`,
    service: service.name,
    error,
  });
  send(res, 502, 'application/json; charset=utf-8', body, { 'x-autostart-status': 'failed' });
}

/** blocking mode: the start did not finish within blockingTimeout. */
export function sendTimedOut(res: ServerResponse, service: ManagedService): void {
  const body = JSON.stringify({
    status: 'timeout',
    message: `${service.name} was not ready within its blockingTimeout of ${service.blockingTimeout} s; it goes on starting, retry the request`,
    service: service.name,
    estimatedTime: service.estimatedTime,
    blockingTimeout: service.blockingTimeout,
  });
  send(res, 504, 'application/json; charset=utf-8', body, { 'x-autostart-status': 'starting', 'retry-after': String(Math.max(1, Math.min(service.estimatedTime, 30))) });
}

export function notManagedBody(host: string): string {
  return JSON.stringify({ error: `No managed service answers for host "${host}": add it to a service's hosts in AUTOSTART_CONFIG`, host });
}

export function sendNotManaged(res: ServerResponse, host: string): void {
  send(res, 404, 'application/json; charset=utf-8', notManagedBody(host), {});
}

/** The body of a 400 for a path the proxy cannot read (a malformed percent-encoding). */
export function malformedPathBody(): string {
  return JSON.stringify({ error: 'The path holds a malformed percent-encoding (a % not followed by the bytes of a UTF-8 character)' });
}

export function sendMalformedPath(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  send(res, 400, 'application/json; charset=utf-8', malformedPathBody(), { connection: 'close' });
}

/** A raw HTTP answer on an upgrade socket that will not be proxied (the service is not ready, or unknown). */
export function rawAnswer(status: number, reason: string, body: string, headers: Record<string, string> = {}): string {
  let head = `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: ${NO_STORE}\r\nconnection: close\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return `${head}\r\n${body}`;
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string>): void {
  // A page (built in or a custom theme) gets helmet's headers with a CSP allowing exactly its own
  // inline script and style by hash: nothing a template value could inject runs.
  const security = type.startsWith('text/html') ? pageSecurityHeaders(body) : { 'x-content-type-options': 'nosniff' };
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': NO_STORE, ...security, ...headers });
  res.end(body);
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  return v.split(',')[0].trim() || undefined;
}
