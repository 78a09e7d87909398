import type { JsonWebKey, KeyObject } from 'node:crypto';
import {
  checkClaims,
  decodeJwt,
  JwtVerificationError,
  publicKeyFromJwk,
  verifySignature,
  type ClaimChecks,
  type JwsAlgorithm,
  type JwtClaims,
} from './jwt-verify';

export interface JwksVerifierOptions extends Omit<ClaimChecks, 'now'> {
  /** Where the key set is published, e.g. `http://auth-api:3004/.well-known/jwks.json`. */
  jwksUrl: string;
  /** Accepted algorithms; default RS256 and EdDSA. `none` and HMAC are never accepted. */
  algorithms?: JwsAlgorithm[];
  /** How long a fetched key set is trusted; default 10 minutes. */
  cacheTtlMs?: number;
  /** Least time between two fetches triggered by an unknown `kid`; default 30 seconds. */
  minRefreshIntervalMs?: number;
  /** Timeout of one fetch; default 5 seconds. */
  timeoutMs?: number;
  /** Injected for tests; default global fetch. */
  fetch?: typeof fetch;
  now?: () => number;
}

interface CachedKeys {
  keys: Map<string, { key: KeyObject; alg?: string }>;
  fetchedAt: number;
}

/**
 * Verifies asymmetric JWTs against a remote JSON Web Key Set, so a service can check another's
 * tokens without a shared secret. Keys are cached for `cacheTtlMs`; a token whose `kid` is not in
 * the cache triggers one refetch (rate-limited by `minRefreshIntervalMs`), which is how a key
 * rotation on the issuer is picked up. Concurrent refreshes share one request.
 */
export class JwksVerifier {
  private cache?: CachedKeys;
  private inflight?: Promise<CachedKeys>;
  private lastFetchAttempt = -Infinity;
  private readonly algorithms: JwsAlgorithm[];
  private readonly now: () => number;

  constructor(private readonly options: JwksVerifierOptions) {
    this.algorithms = options.algorithms ?? ['RS256', 'EdDSA'];
    this.now = options.now ?? Date.now;
  }

  /** Returns the token's claims when signature, algorithm, exp/nbf, iss and aud all check out. */
  async verify<T extends JwtClaims = JwtClaims>(token: string): Promise<T> {
    const decoded = decodeJwt(token);
    const alg = decoded.header.alg as JwsAlgorithm;
    if (!this.algorithms.includes(alg)) throw new JwtVerificationError('algorithm', `JWT algorithm ${alg} is not accepted`);
    const kid = decoded.header.kid;
    if (!kid) throw new JwtVerificationError('unknown_kid', 'JWT header has no kid');
    const entry = await this.keyFor(kid);
    if (entry.alg && entry.alg !== alg) throw new JwtVerificationError('algorithm', `Key ${kid} is not for ${alg}`);
    if (!verifySignature(decoded, entry.key)) throw new JwtVerificationError('signature', 'JWT signature is invalid');
    checkClaims(decoded.claims, { ...this.options, now: this.now });
    return decoded.claims as T;
  }

  /** Drops the cached key set (the next verification fetches again). */
  clear(): void {
    this.cache = undefined;
  }

  private async keyFor(kid: string): Promise<{ key: KeyObject; alg?: string }> {
    const ttl = this.options.cacheTtlMs ?? 600_000;
    if (!this.cache || this.now() - this.cache.fetchedAt >= ttl) {
      this.cache = await this.refresh();
    }
    let found = this.cache.keys.get(kid);
    if (!found && this.now() - this.lastFetchAttempt >= (this.options.minRefreshIntervalMs ?? 30_000)) {
      this.cache = await this.refresh();
      found = this.cache.keys.get(kid);
    }
    if (!found) throw new JwtVerificationError('unknown_kid', `No published key has kid ${kid}`);
    return found;
  }

  private refresh(): Promise<CachedKeys> {
    this.inflight ??= this.fetchKeys().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchKeys(): Promise<CachedKeys> {
    this.lastFetchAttempt = this.now();
    const doFetch = this.options.fetch ?? fetch;
    let body: unknown;
    try {
      const res = await doFetch(this.options.jwksUrl, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      // Keep serving the keys we have while the issuer is unreachable; try again after the minimum interval.
      if (this.cache) {
        const ttl = this.options.cacheTtlMs ?? 600_000;
        return { keys: this.cache.keys, fetchedAt: this.now() - ttl + (this.options.minRefreshIntervalMs ?? 30_000) };
      }
      throw new JwtVerificationError('jwks', `Could not fetch the JWKS: ${(err as Error).message}`);
    }
    const list = (body as { keys?: unknown })?.keys;
    if (!Array.isArray(list)) throw new JwtVerificationError('jwks', 'The JWKS has no keys array');
    const keys = new Map<string, { key: KeyObject; alg?: string }>();
    for (const jwk of list as Array<JsonWebKey & { kid?: string; alg?: string; use?: string }>) {
      if (!jwk || typeof jwk.kid !== 'string' || (jwk.use && jwk.use !== 'sig')) continue;
      try {
        keys.set(jwk.kid, { key: publicKeyFromJwk(jwk), alg: jwk.alg });
      } catch {
        // a key this runtime cannot import is skipped; tokens signed with it fail as unknown kid
      }
    }
    return { keys, fetchedAt: this.now() };
  }
}
