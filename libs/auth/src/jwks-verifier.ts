import { createLocalJWKSet, type JWK, type JWTVerifyGetKey } from 'jose';
import { decodeJwt, JwtVerificationError, publicKeyFromJwk, verifyJwt, type ClaimChecks, type JwsAlgorithm, type JwtClaims } from './jwt-verify';

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
  /** The published signing keys' ids. */
  kids: Set<string>;
  /** jose's lookup over those keys: by `kid`, and only a key whose type, curve and `alg` fit the token's. */
  keySet: JWTVerifyGetKey;
  fetchedAt: number;
}

/**
 * Verifies asymmetric JWTs against a remote JSON Web Key Set, so a service can check another's
 * tokens without a shared secret (jose's `jwtVerify` over a `createLocalJWKSet` of the fetched
 * keys). Keys are cached for `cacheTtlMs`; a token whose `kid` is not in the cache triggers one
 * refetch (rate-limited by `minRefreshIntervalMs`), which is how a key rotation on the issuer is
 * picked up. Concurrent refreshes share one request; while the issuer is unreachable the cached
 * keys keep working.
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
    const { header } = decodeJwt(token);
    const alg = header.alg as JwsAlgorithm;
    if (!this.algorithms.includes(alg)) throw new JwtVerificationError('algorithm', `JWT algorithm ${alg} is not accepted`);
    const kid = header.kid;
    if (!kid) throw new JwtVerificationError('unknown_kid', 'JWT header has no kid');
    const keys = await this.keysWith(kid);
    try {
      return await verifyJwt<T>(token, keys.keySet, { ...this.options, algorithms: this.algorithms, now: this.now });
    } catch (err) {
      // The kid is published, so no key matching means its type, curve or `alg` does not fit the token's.
      if (err instanceof JwtVerificationError && err.code === 'unknown_kid') throw new JwtVerificationError('algorithm', `Key ${kid} does not fit ${alg}`);
      throw err;
    }
  }

  /** Drops the cached key set (the next verification fetches again). */
  clear(): void {
    this.cache = undefined;
  }

  /** The cached key set once it holds `kid` (refetched when stale or, at most once per interval, when `kid` is new). */
  private async keysWith(kid: string): Promise<CachedKeys> {
    const ttl = this.options.cacheTtlMs ?? 600_000;
    if (!this.cache || this.now() - this.cache.fetchedAt >= ttl) {
      this.cache = await this.refresh();
    }
    if (!this.cache.kids.has(kid) && this.now() - this.lastFetchAttempt >= (this.options.minRefreshIntervalMs ?? 30_000)) {
      this.cache = await this.refresh();
    }
    if (!this.cache.kids.has(kid)) throw new JwtVerificationError('unknown_kid', `No published key has kid ${kid}`);
    return this.cache;
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
        return { ...this.cache, fetchedAt: this.now() - ttl + (this.options.minRefreshIntervalMs ?? 30_000) };
      }
      throw new JwtVerificationError('jwks', `Could not fetch the JWKS: ${(err as Error).message}`);
    }
    const list = (body as { keys?: unknown })?.keys;
    if (!Array.isArray(list)) throw new JwtVerificationError('jwks', 'The JWKS has no keys array');
    // One signing key per kid (the last published wins), and only keys this runtime can import:
    // a token signed with another fails as unknown kid.
    const byKid = new Map<string, JWK>();
    for (const jwk of list as Array<JWK & { kid?: unknown }>) {
      if (!jwk || typeof jwk !== 'object' || typeof jwk.kid !== 'string' || (jwk.use && jwk.use !== 'sig')) continue;
      try {
        publicKeyFromJwk(jwk as Parameters<typeof publicKeyFromJwk>[0]);
        byKid.set(jwk.kid, jwk);
      } catch {
        // skipped
      }
    }
    return { kids: new Set(byKid.keys()), keySet: createLocalJWKSet({ keys: [...byKid.values()] }), fetchedAt: this.now() };
  }
}
