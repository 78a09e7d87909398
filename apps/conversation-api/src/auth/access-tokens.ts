import { Injectable } from '@nestjs/common';
import { jwtVerify, SignJWT } from 'jose';
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

const ISSUER = 'conversation-api';
const AUDIENCE = 'conversation-api';

/** HS256 access tokens of 15 minutes, signed with CONVERSATION_JWT_SECRET. */
@Injectable()
export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(config: ConversationApiConfig) {
    this.key = new TextEncoder().encode(loadJwtSecret(config));
  }

  async sign(claims: AccessClaims): Promise<{ token: string; expiresIn: number }> {
    const token = await new SignJWT({ acc: claims.acc, sid: claims.sid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
      .sign(this.key);
    return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
  }

  /** The claims of a valid, unexpired token of this service; null otherwise. */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, clockTolerance: 5 });
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string' || typeof payload.sid !== 'string') return null;
      return { sub: payload.sub, acc: payload.acc, sid: payload.sid };
    } catch {
      return null;
    }
  }
}
