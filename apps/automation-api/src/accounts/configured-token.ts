/**
 * What a start does with the configured IG_ACCESS_TOKEN of the AUTOMATION_API_KEY account. The
 * stored token may be newer than the configuration (the token scheduler refreshed it, or the
 * operator connected through the login flow), so the configured one is taken only when it is new —
 * its digest differs from the one the stored token descends from — never merely because the
 * process restarted.
 */
export interface StoredToken {
  access_token: string | null;
  configured_token_sha256: string | null;
  token_refreshed_at: Date | null;
}

export type ConfiguredTokenDecision =
  /** Keep the stored token (and its expiry); remember the configured digest. */
  | 'keep'
  /** Store the configured token; its expiry is unknown until the token scheduler learns it. */
  | 'replace';

export function configuredTokenDecision(stored: StoredToken | null, configured: { token: string; sha256: string } | null): ConfiguredTokenDecision {
  // Nothing configured: a token connected through the login flow stays.
  if (!configured) return 'keep';
  if (!stored || !stored.access_token) return 'replace';
  // The configuration did not change since the stored token was taken from it (or refreshed from it).
  if (stored.configured_token_sha256 === configured.sha256) return 'keep';
  if (stored.configured_token_sha256 === null) {
    // Rows written before the digest was kept: the same token, or one the service refreshed since.
    if (stored.access_token === configured.token || stored.token_refreshed_at !== null) return 'keep';
  }
  // The operator put a different token into the configuration: that is the newest intent.
  return 'replace';
}
