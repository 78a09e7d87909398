/**
 * `OCEAN_CARRIERS`: the DCSA Track & Trace endpoint of each carrier, as one JSON object keyed by the
 * carrier's code (see ocean-references.ts), validated at start. Plain functions.
 *
 * ```json
 * {
 *   "MAERSK": { "url": "https://api.maersk.com/track-and-trace-private", "version": "2.2.0",
 *               "auth": { "type": "header", "header": "Consumer-Key", "key": "…" } },
 *   "MSC":    { "url": "https://…", "auth": { "type": "bearer", "token": "…" } },
 *   "CMA":    { "url": "https://…", "auth": { "type": "oauth2", "token_url": "https://…/token",
 *               "client_id": "…", "client_secret": "…", "scope": "optional" } }
 * }
 * ```
 * `url` is the base the API's `/v2/events` hangs from; `version` (default `2.2.0`) is sent as the
 * `API-Version` header (major only, as the standard asks).
 */
import { KNOWN_CARRIERS, normalizeCarrier } from './ocean-references';

export type CarrierAuth =
  | { type: 'header'; header: string; key: string }
  | { type: 'bearer'; token: string }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; clientSecret: string; scope?: string };

export interface CarrierEndpoint {
  url: string;
  version: string;
  auth: CarrierAuth;
}

const isHttpUrl = (v: unknown): v is string => {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};
const text = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The endpoints by carrier code, or the list of what is wrong (each naming the carrier and field). */
export function parseCarrierSettings(json: string | undefined): { endpoints: Map<string, CarrierEndpoint>; errors: string[] } {
  const endpoints = new Map<string, CarrierEndpoint>();
  const errors: string[] = [];
  if (!json || json.trim() === '') return { endpoints, errors };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { endpoints, errors: ['OCEAN_CARRIERS must be a JSON object keyed by carrier code'] };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { endpoints, errors: ['OCEAN_CARRIERS must be a JSON object keyed by carrier code'] };
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const code = normalizeCarrier(name);
    const where = `OCEAN_CARRIERS.${name}`;
    if (!code) {
      errors.push(`${where}: unknown carrier (known: ${KNOWN_CARRIERS.join(', ')})`);
      continue;
    }
    const entry = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
    if (!isHttpUrl(entry.url)) errors.push(`${where}.url must be an http(s) URL (the base of /v2/events)`);
    const version = entry.version === undefined ? '2.2.0' : entry.version;
    if (typeof version !== 'string' || !/^2(\.\d+){0,2}$/.test(version)) errors.push(`${where}.version must be a DCSA T&T 2.x version such as 2.2.0`);
    const a = (entry.auth && typeof entry.auth === 'object' ? entry.auth : {}) as Record<string, unknown>;
    let auth: CarrierAuth | null = null;
    if (a.type === 'header') {
      if (!text(a.header) || !/^[A-Za-z0-9-]+$/.test(a.header)) errors.push(`${where}.auth.header must be a header name such as Consumer-Key`);
      else if (!text(a.key)) errors.push(`${where}.auth.key is required`);
      else auth = { type: 'header', header: a.header, key: a.key };
    } else if (a.type === 'bearer') {
      if (!text(a.token)) errors.push(`${where}.auth.token is required`);
      else auth = { type: 'bearer', token: a.token };
    } else if (a.type === 'oauth2') {
      if (!isHttpUrl(a.token_url)) errors.push(`${where}.auth.token_url must be an http(s) URL`);
      else if (!text(a.client_id) || !text(a.client_secret)) errors.push(`${where}.auth.client_id and client_secret are required`);
      else auth = { type: 'oauth2', tokenUrl: a.token_url, clientId: a.client_id, clientSecret: a.client_secret, ...(text(a.scope) ? { scope: a.scope } : {}) };
    } else {
      errors.push(`${where}.auth.type must be header, bearer or oauth2`);
    }
    if (auth && isHttpUrl(entry.url) && typeof version === 'string' && /^2(\.\d+){0,2}$/.test(version)) {
      endpoints.set(code, { url: entry.url.replace(/\/+$/, ''), version, auth });
    }
  }
  return { endpoints, errors };
}
