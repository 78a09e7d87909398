import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ACCESS_TOKEN_TTL_SECONDS, ConversationApiConfig } from '../config';
import { loadJwtSecret } from '../common/secrets';

export interface AccessClaims {
  /** user id */
  sub: string;
  /** account (tenant) id */
  acc: string;
  /** session: the refresh-token family */
  sid: string;
}

/** The claims of a verified token, with its expiry (seconds since the epoch). */
export interface VerifiedAccessClaims extends AccessClaims {
  exp: number;
}

const ISSUER = 'conversation-api';
const AUDIENCE = 'conversation-api';

/** HS256 access tokens of 15 minutes, signed with CONVERSATION_JWT_SECRET (@nestjs/jwt, as email-api's sessions). */
@Injectable()
export class AccessTokens {
  private readonly jwt: JwtService;

  constructor(config: ConversationApiConfig) {
    this.jwt = new JwtService({ secret: loadJwtSecret(config), signOptions: { algorithm: 'HS256', issuer: ISSUER, audience: AUDIENCE } });
  }

  /** A token of `ttlSeconds` (15 minutes; tests sign shorter ones to watch sockets end at expiry). */
  async sign(claims: AccessClaims, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): Promise<{ token: string; expiresIn: number }> {
    const token = await this.jwt.signAsync({ acc: claims.acc, sid: claims.sid }, { subject: claims.sub, expiresIn: ttlSeconds, header: { alg: 'HS256', typ: 'JWT' } });
    return { token, expiresIn: ttlSeconds };
  }

  /** The claims of a valid, unexpired token of this service; null otherwise. */
  async verify(token: string): Promise<VerifiedAccessClaims | null> {
    try {
      const payload = await this.jwt.verifyAsync<Record<string, unknown>>(token, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, clockTolerance: 5 });
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') return null;
      return { sub: payload.sub, acc: payload.acc, sid: payload.sid, exp: payload.exp };
    } catch {
      return null;
    }
  }
}
