import { Inject, Injectable } from '@nestjs/common';
import { JwksVerifier, type JwtClaims } from '@platform/auth';
import { LogisticsHooksConfig } from '../config';
import { RevokedSessionsRepository } from './revoked-sessions.repository';

/** The claims of a logistics-realm access token of auth-api (its README, "Tokens"). */
export interface LogisticsClaims extends JwtClaims {
  sub: string;
  email?: string;
  role: string;
  realm: string;
  sid?: string;
  exp: number;
}

export interface AdminUser {
  id: string;
  email: string | null;
  role: string;
  sessionId: string | null;
  /** When the token expires (ms since the epoch, from `exp`). */
  expiresAt: number;
}

/**
 * Verifies auth-api's logistics-realm access tokens against its JWKS (`AUTH_JWKS_URL`) with the shared
 * `JwksVerifier`: RS256/EdDSA signature by a published key, `exp`, `iss` = AUTH_ISSUER, `aud` =
 * `logistics`, `realm` = `logistics`, and a session (`sid`) not revoked at auth-api (auth.session_revoked).
 * Used by the HTTP guard and the Socket.IO handshake.
 */
@Injectable()
export class AdminTokenVerifier {
  private readonly verifier: JwksVerifier | null;

  constructor(
    @Inject(LogisticsHooksConfig) config: LogisticsHooksConfig,
    private readonly revoked: RevokedSessionsRepository,
  ) {
    this.verifier = config.AUTH_JWKS_URL
      ? new JwksVerifier({ jwksUrl: config.AUTH_JWKS_URL, issuer: config.AUTH_ISSUER, audience: 'logistics', clockToleranceSec: 5 })
      : null;
  }

  get configured(): boolean {
    return this.verifier !== null;
  }

  /** The user of a valid token, or null (invalid, expired, another realm, or AUTH_JWKS_URL unset). */
  async verify(token: string): Promise<AdminUser | null> {
    if (!this.verifier) return null;
    try {
      const claims = await this.verifier.verify<LogisticsClaims>(token);
      if (claims.realm !== 'logistics' || typeof claims.sub !== 'string' || typeof claims.role !== 'string' || typeof claims.exp !== 'number') return null;
      if (typeof claims.sid === 'string' && (await this.revoked.isRevoked(claims.sid))) return null;
      return { id: claims.sub, email: claims.email ?? null, role: claims.role, sessionId: claims.sid ?? null, expiresAt: claims.exp * 1000 };
    } catch {
      return null;
    }
  }
}
