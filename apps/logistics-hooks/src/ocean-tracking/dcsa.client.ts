import type { CarrierEndpoint } from './carrier-settings';
import { DCSA_FILTER, type ReferenceKind } from './dcsa-mapping';

/** A carrier call that failed: `status` is the carrier's HTTP status, or null (network, timeout, bad answer). */
export class CarrierError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface DcsaClientOptions {
  timeoutMs: number;
  /** Pages followed at most (`Next-Page`); events beyond are left out. */
  maxPages: number;
  pageSize: number;
}

/**
 * A client of one carrier's DCSA Track & Trace v2.2 API: `GET {url}/v2/events?<filter>=<reference>`,
 * following `Next-Page` cursors (`?cursor=`; a full URL on the same origin is followed as given),
 * `API-Version: <major>`, and the carrier's authentication: an API key in a named header, a bearer
 * token, or OAuth2 client credentials (token fetched from `token_url` with `grant_type=client_credentials`,
 * kept until 30 s before `expires_in`, fetched again once after a 401).
 */
export class DcsaClient {
  private token: { value: string; expiresAt: number } | null = null;
  private tokenRequest: Promise<string> | null = null;

  constructor(
    readonly carrier: string,
    private readonly endpoint: CarrierEndpoint,
    private readonly options: DcsaClientOptions,
  ) {}

  async events(kind: ReferenceKind, reference: string): Promise<unknown[]> {
    const first = new URL(`${this.endpoint.url}/v2/events`);
    first.searchParams.set(DCSA_FILTER[kind], reference);
    first.searchParams.set('limit', String(this.options.pageSize));
    const events: unknown[] = [];
    let next: URL | null = first;
    for (let page = 0; next && page < this.options.maxPages; page++) {
      const res = await this.get(next);
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new CarrierError(`${this.carrier} answered /v2/events with something other than JSON`, res.status);
      }
      if (!Array.isArray(body)) throw new CarrierError(`${this.carrier} answered /v2/events with something other than an event list`, res.status);
      events.push(...body);
      next = this.nextPage(res.headers.get('next-page'), first);
    }
    return events;
  }

  private nextPage(header: string | null, first: URL): URL | null {
    if (!header) return null;
    if (/^https?:\/\//i.test(header) || header.startsWith('/')) {
      const url = new URL(header, first);
      return url.origin === first.origin ? url : null;
    }
    const url = new URL(`${this.endpoint.url}/v2/events`);
    url.searchParams.set('cursor', header);
    return url;
  }

  private async get(url: URL, retried = false): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', 'API-Version': this.endpoint.version.split('.')[0] };
    const auth = this.endpoint.auth;
    if (auth.type === 'header') headers[auth.header] = auth.key;
    else if (auth.type === 'bearer') headers.authorization = `Bearer ${auth.token}`;
    else headers.authorization = `Bearer ${await this.accessToken()}`;
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (err) {
      throw new CarrierError(`${this.carrier} did not answer /v2/events: ${(err as Error).message}`, null);
    }
    if (res.status === 401 && auth.type === 'oauth2' && !retried) {
      await res.body?.cancel();
      this.token = null;
      return this.get(url, true);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new CarrierError(`${this.carrier} answered /v2/events with ${res.status}`, res.status);
    }
    return res;
  }

  private accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return Promise.resolve(this.token.value);
    this.tokenRequest ??= this.fetchToken().finally(() => (this.tokenRequest = null));
    return this.tokenRequest;
  }

  private async fetchToken(): Promise<string> {
    const auth = this.endpoint.auth;
    if (auth.type !== 'oauth2') throw new Error('not an OAuth2 carrier');
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: auth.clientId, client_secret: auth.clientSecret });
    if (auth.scope) form.set('scope', auth.scope);
    let res: Response;
    try {
      res = await fetch(auth.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      throw new CarrierError(`${this.carrier}'s token endpoint did not answer: ${(err as Error).message}`, null);
    }
    const body = (await res.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
    if (!res.ok || typeof body?.access_token !== 'string') throw new CarrierError(`${this.carrier}'s token endpoint answered ${res.status} without an access token`, res.status);
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300;
    this.token = { value: body.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 30) * 1000 };
    return body.access_token;
  }
}
