import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { bearerToken } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { hasPermission, type Permission } from '../access/permissions';
import { PUBLIC_ROUTE, REQUIRED_PERMISSION } from '../access/access.decorators';
import { AuthService } from './auth.service';
import type { Principal } from '../access/principal';

export const unauthorized = (message = 'A valid access token is required') =>
  new ApiError(401, 'UNAUTHORIZED', message, {
    suggestion: 'Send Authorization: Bearer <access_token> from POST /api/v1/auth/login; when it expired, get a new one with POST /api/v1/auth/refresh.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

/**
 * Global guard: every route needs a valid access token of an active user whose session is alive,
 * unless `@Public()`; `@RequirePermission(p)` then needs `p` (or `admin`) in the caller's role.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined>; principal?: Principal }>();
    const token = bearerToken(req);
    if (!token) throw unauthorized();
    const principal = await this.auth.authenticate(token);
    if (!principal) throw unauthorized('The access token is invalid, expired or its session was revoked');
    req.principal = principal;
    const required = this.reflector.getAllAndOverride<Permission | null | undefined>(REQUIRED_PERMISSION, targets);
    if (required && !hasPermission(principal.permissions, required)) {
      throw new ApiError(403, 'FORBIDDEN', `This action needs the permission ${required}`, {
        suggestion: `Ask an administrator for a role with ${required}.`,
      });
    }
    return true;
  }
}
