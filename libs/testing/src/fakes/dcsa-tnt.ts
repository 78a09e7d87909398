import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake carrier serving the DCSA Track & Trace API v2.2 (dcsaorg/DCSA-OpenAPI `tnt/v2/tnt_v2.2.0.yaml`)
 * for tests: node:http on 127.0.0.1, port 0, in-memory events.
 *
 * - `GET /v2/events` filtered by `equipmentReference`, `transportDocumentReference` or
 *   `carrierBookingReference` (each matches the shipments that carry that reference), `eventType`
 *   (comma-separated), `limit` (default 100); cursor paging: `Next-Page` (omitted on the last page),
 *   `Current-Page`, `First-Page` headers hold opaque cursors sent back as `?cursor=`; `API-Version`
 *   on every answer; `maxLimit` caps the page size. Unknown references answer `[]` (as the standard does).
 * - Authentication like a carrier's, one mode per server: an API key in a header of a configurable
 *   name, a bearer token, or OAuth2 client credentials (`POST /oauth/token`, form body
 *   `grant_type=client_credentials`, `client_id`, `client_secret`; the token it issues is the bearer).
 *   Missing or wrong credentials → 401 in the DCSA error shape.
 * - `fail`: answer every events call with this status (a carrier outage); `delayMs`: answer late.
 * - `requests` records every call (path, query, headers).
 */

export type DcsaEvent = Record<string, unknown> & { eventType: 'SHIPMENT' | 'TRANSPORT' | 'EQUIPMENT'; eventClassifierCode?: 'ACT' | 'EST' | 'PLN'; eventDateTime?: string };

export interface FakeDcsaShipment {
  equipmentReferences?: string[];
  transportDocumentReference?: string;
  carrierBookingReference?: string;
  events: DcsaEvent[];
}

export type FakeDcsaAuth =
  | { type: 'header'; name: string; value: string }
  | { type: 'bearer'; token: string }
  | { type: 'oauth2'; clientId: string; clientSecret: string; expiresIn?: number };

export interface FakeDcsaTntOptions {
  auth: FakeDcsaAuth;
  shipments?: FakeDcsaShipment[];
  /** The page size when the client sends no `limit` (the standard's default is 100). */
  defaultLimit?: number;
  /** The largest page served whatever `limit` asks (carriers cap it): forces paging in tests. */
  maxLimit?: number;
}

export interface FakeDcsaRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeDcsaTnt {
  /** Base URL (`http://127.0.0.1:<port>`); the API is under `/v2`. */
  url: string;
  /** `POST` here for OAuth2 client credentials. */
  tokenUrl: string;
  shipments: FakeDcsaShipment[];
  requests: FakeDcsaRequest[];
  /** Tokens issued by the OAuth2 endpoint. */
  issuedTokens: string[];
  /** Answer events calls with this status (null: normal). */
  fail: number | null;
  delayMs: number;
  /** Revoke the OAuth2 tokens issued so far (the next events call with one gets 401). */
  expireTokens(): void;
  close(): Promise<void>;
}

export async function startFakeDcsaTnt(options: FakeDcsaTntOptions): Promise<FakeDcsaTnt> {
  const cursors = new Map<string, { query: Record<string, string>; offset: number }>();
  let nextCursor = 1;
  let tokenCount = 0;
  const validTokens = new Set<string>();

  const fake: FakeDcsaTnt = {
    url: '',
    tokenUrl: '',
    shipments: options.shipments ?? [],
    requests: [],
    issuedTokens: [],
    fail: null,
    delayMs: 0,
    expireTokens: () => validTokens.clear(),
    close: async () => undefined,
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'api-version': '2.2.0', ...headers });
    res.end(text);
  };
  const dcsaError = (req: IncomingMessage, status: number, reason: string, message: string) => ({
    httpMethod: req.method,
    requestUri: req.url,
    statusCode: status,
    statusCodeText: reason,
    errorDateTime: new Date().toISOString(),
    errors: [{ reason, message }],
  });

  const authorised = (req: IncomingMessage): boolean => {
    const auth = options.auth;
    if (auth.type === 'header') return req.headers[auth.name.toLowerCase()] === auth.value;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (auth.type === 'bearer') return bearer === auth.token;
    return bearer !== undefined && validTokens.has(bearer);
  };

  const matches = (s: FakeDcsaShipment, query: Record<string, string>): boolean => {
    if (query.equipmentReference) return (s.equipmentReferences ?? []).includes(query.equipmentReference);
    if (query.transportDocumentReference) return s.transportDocumentReference === query.transportDocumentReference;
    if (query.carrierBookingReference) return s.carrierBookingReference === query.carrierBookingReference;
    return true;
  };

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    fake.requests.push({ method: req.method ?? 'GET', path: url.pathname, query, headers: req.headers });

    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      const form = new URLSearchParams(await readBody(req));
      const auth = options.auth;
      if (auth.type !== 'oauth2') return send(res, 404, { error: 'not_found' });
      let id = form.get('client_id');
      let secret = form.get('client_secret');
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (basic) [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      if (form.get('grant_type') !== 'client_credentials') return send(res, 400, { error: 'unsupported_grant_type' });
      if (id !== auth.clientId || secret !== auth.clientSecret) return send(res, 401, { error: 'invalid_client' });
      const token = `fake-dcsa-token-${++tokenCount}`;
      validTokens.add(token);
      fake.issuedTokens.push(token);
      return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: auth.expiresIn ?? 3600 });
    }

    if (req.method !== 'GET' || url.pathname !== '/v2/events') return send(res, 404, dcsaError(req, 404, 'notFound', 'No such resource'));
    if (fake.delayMs) await new Promise((r) => setTimeout(r, fake.delayMs));
    if (!authorised(req)) return send(res, 401, dcsaError(req, 401, 'unauthorized', 'Missing or invalid credentials'));
    if (fake.fail) return send(res, fake.fail, dcsaError(req, fake.fail, 'internalError', 'The carrier is unavailable'));

    let page: { query: Record<string, string>; offset: number };
    if (query.cursor) {
      const found = cursors.get(query.cursor);
      if (!found) return send(res, 400, dcsaError(req, 400, 'invalidCursor', 'Unknown cursor'));
      page = found;
    } else {
      page = { query, offset: 0 };
    }
    const limit = Math.min(options.maxLimit ?? Infinity, Math.max(1, Number(page.query.limit) || options.defaultLimit || 100));
    const types = page.query.eventType?.split(',');
    const all = fake.shipments
      .filter((s) => matches(s, page.query))
      .flatMap((s) => s.events)
      .filter((e) => !types || types.includes(e.eventType));
    const slice = all.slice(page.offset, page.offset + limit);
    const cursorFor = (offset: number) => {
      const c = `c${nextCursor++}`;
      cursors.set(c, { query: page.query, offset });
      return c;
    };
    const headers: Record<string, string> = { 'current-page': cursorFor(page.offset), 'first-page': cursorFor(0) };
    if (page.offset + limit < all.length) headers['next-page'] = cursorFor(page.offset + limit);
    return send(res, 200, slice, headers);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) send(res, 500, { error: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.tokenUrl = `${fake.url}/oauth/token`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
