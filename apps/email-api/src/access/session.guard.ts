import { Injectable, UseGuards, applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiCookieAuth } from '@nestjs/swagger';
import { JwtCookieGuard } from '@platform/auth';
import { ApiErrors } from '../common/api-errors.decorator';
import { SESSION_COOKIE } from '../config';
import { notLoggedIn } from './errors';
import { SessionService } from './session.service';
import type { User } from './user';

/** Dashboard user endpoints (`/users/@me…`): the session cookie set by POST /auth/login. */
@Injectable()
export class SessionGuard extends JwtCookieGuard<User> {
  protected readonly cookieName = SESSION_COOKIE;

  constructor(private readonly sessions: SessionService) {
    super();
  }

  protected authenticate(token: string): Promise<User | null> {
    return this.sessions.authenticate(token);
  }

  protected override unauthorized(): Error {
    return notLoggedIn();
  }
}

export function UserSession(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(SessionGuard),
    ApiCookieAuth(SESSION_COOKIE),
    ApiErrors({ 401: '`UNAUTHORIZED`: no session cookie, or an invalid or expired one; log in with POST /auth/login' }),
  );
}

/** The logged-in user (after {@link SessionGuard}). */
export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): User => {
  return ctx.switchToHttp().getRequest<{ user: User }>().user;
});
