import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { OAuthProviderName } from './oauth-providers';

/** Pending authorizations (`oauth_states`) and provider accounts linked to users (`oauth_accounts`). */
@Injectable()
export class OAuthRepository {
  constructor(private readonly db: Database) {}

  /** Stores a pending authorization and drops the expired ones (they can never be used). */
  async insertState(stateHash: string, provider: OAuthProviderName, codeVerifier: string, ttlSeconds: number): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.db.table('oauth_states')} WHERE expires_at < now()`);
    await this.db.rows(
      `INSERT INTO ${this.db.table('oauth_states')} (state_hash, provider, code_verifier, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [stateHash, provider, codeVerifier, ttlSeconds],
    );
  }

  /**
   * Deletes the authorization and returns its PKCE verifier, atomically: only an unexpired state of
   * this provider matches, and a state works once.
   */
  async consumeState(stateHash: string, provider: OAuthProviderName): Promise<string | null> {
    const row = await this.db.one<{ code_verifier: string; live: boolean }>(
      `DELETE FROM ${this.db.table('oauth_states')} WHERE state_hash = $1 AND provider = $2 RETURNING code_verifier, expires_at > now() AS live`,
      [stateHash, provider],
    );
    return row?.live ? row.code_verifier : null;
  }

  /** The user linked to the provider account; refreshes the account's last known email and login time. */
  async touchAccount(provider: OAuthProviderName, providerUserId: string, email: string | null): Promise<string | null> {
    const row = await this.db.one<{ user_id: string }>(
      `UPDATE ${this.db.table('oauth_accounts')} SET email = $3, last_login_at = now() WHERE provider = $1 AND provider_user_id = $2 RETURNING user_id`,
      [provider, providerUserId, email],
    );
    return row?.user_id ?? null;
  }

  /** Links the provider account to the user (a concurrent link of the same account keeps the first). */
  async link(provider: OAuthProviderName, providerUserId: string, userId: string, email: string): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${this.db.table('oauth_accounts')} (provider, provider_user_id, user_id, email) VALUES ($1, $2, $3, $4) ON CONFLICT (provider, provider_user_id) DO NOTHING`,
      [provider, providerUserId, userId, email],
    );
  }
}
