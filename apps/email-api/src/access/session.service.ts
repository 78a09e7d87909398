import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { Response } from 'express';
import { EmailApiConfig, SESSION_COOKIE, SESSION_TTL_SECONDS } from '../config';
import { loadSessionSecret } from './session-secret';
import type { User } from './user';
import { UsersRepository } from './users.repository';

interface SessionClaims {
  sub: string;
  /** The user's session version: a password reset bumps it and ends every older session. */
  sv: number;
}

/** Sets the dashboard session cookie (password and OAuth logins alike). */
export function setSessionCookie(res: Response, token: string, config: EmailApiConfig): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.NODE_ENV === 'production',
    path: '/',
    maxAge: SESSION_TTL_SECONDS * 1000,
  });
}

/** Dashboard sessions: an HS256 JWT in an HttpOnly cookie. */
@Injectable()
export class SessionService {
  private readonly jwt: JwtService;
  readonly secret: string;

  constructor(
    config: EmailApiConfig,
    private readonly users: UsersRepository,
  ) {
    this.secret = loadSessionSecret(config);
    this.jwt = new JwtService({ secret: this.secret, signOptions: { algorithm: 'HS256', issuer: 'email-api', audience: 'email-dashboard' } });
  }

  issue(user: User): string {
    return this.jwt.sign({ sub: user.id, sv: user.sessionVersion } satisfies SessionClaims, { expiresIn: SESSION_TTL_SECONDS });
  }

  /** The user of a valid session token, or null. */
  async authenticate(token: string): Promise<User | null> {
    let claims: SessionClaims;
    try {
      claims = this.jwt.verify<SessionClaims & object>(token, { algorithms: ['HS256'], issuer: 'email-api', audience: 'email-dashboard' });
    } catch {
      return null;
    }
    if (typeof claims.sub !== 'string' || !/^[0-9a-f-]{36}$/i.test(claims.sub)) return null;
    const user = await this.users.findById(claims.sub);
    if (!user || user.sessionVersion !== claims.sv) return null;
    return user;
  }
}
