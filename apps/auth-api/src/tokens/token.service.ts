import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { AuthApiConfig, FISCAL_ACCESS_TTL_SECONDS, LOGISTICS_ACCESS_TTL_SECONDS } from '../config';
import { JWT_ALGORITHM } from '../keys/signing-keys';

/**
 * The two realms never accept each other's tokens: each has its own `aud`, checked on every
 * verification (and logistics tokens also carry `realm: "logistics"`).
 */
export const FISCAL_AUDIENCE = 'fiscal';
export const LOGISTICS_AUDIENCE = 'logistics';

export interface FiscalClaims {
  sub: string; // the user's email (part B)
  iat: number;
  exp: number;
  iss: string;
  aud: string;
  jti: string;
}

export interface LogisticsClaims {
  sub: string; // the user's id
  email: string;
  role: string;
  realm: 'logistics';
  /** The refresh-token family (login session) the token belongs to; logout revokes it. */
  sid: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
  jti: string;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

/** Signs and verifies the access tokens of both realms (RS256 with the service key, `kid` in the header). */
@Injectable()
export class TokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly config: AuthApiConfig,
  ) {}

  async signFiscal(email: string): Promise<IssuedToken> {
    const token = await this.jwt.signAsync(
      {},
      {
        subject: email,
        expiresIn: FISCAL_ACCESS_TTL_SECONDS,
        audience: FISCAL_AUDIENCE,
        issuer: this.config.AUTH_ISSUER,
        jwtid: randomUUID(),
      },
    );
    return { token, expiresIn: FISCAL_ACCESS_TTL_SECONDS };
  }

  async signLogistics(user: { id: string; email: string; role: string }, sessionId: string): Promise<IssuedToken> {
    const token = await this.jwt.signAsync(
      { email: user.email, role: user.role, realm: 'logistics', sid: sessionId },
      {
        subject: user.id,
        expiresIn: LOGISTICS_ACCESS_TTL_SECONDS,
        audience: LOGISTICS_AUDIENCE,
        issuer: this.config.AUTH_ISSUER,
        jwtid: randomUUID(),
      },
    );
    return { token, expiresIn: LOGISTICS_ACCESS_TTL_SECONDS };
  }

  /** Throws unless the token is a valid, unexpired part B token of this issuer. */
  async verifyFiscal(token: string): Promise<FiscalClaims> {
    const claims = await this.jwt.verifyAsync<FiscalClaims>(token, {
      algorithms: [JWT_ALGORITHM],
      audience: FISCAL_AUDIENCE,
      issuer: this.config.AUTH_ISSUER,
    });
    if (typeof claims.sub !== 'string' || !claims.sub) throw new Error('token has no subject');
    return claims;
  }

  /** Throws unless the token is a valid, unexpired logistics-realm token of this issuer. */
  async verifyLogistics(token: string): Promise<LogisticsClaims> {
    const claims = await this.jwt.verifyAsync<LogisticsClaims>(token, {
      algorithms: [JWT_ALGORITHM],
      audience: LOGISTICS_AUDIENCE,
      issuer: this.config.AUTH_ISSUER,
    });
    if (claims.realm !== 'logistics' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string') {
      throw new Error('token is not a logistics access token');
    }
    return claims;
  }
}
