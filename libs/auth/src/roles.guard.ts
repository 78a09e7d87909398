import { ForbiddenException, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC_KEY, ROLES_KEY } from './decorators';

/** What {@link RolesGuard} reads from `req.user`: a single `role` or a `roles` array. */
export interface RoleBearer {
  role?: string;
  roles?: readonly string[];
}

/**
 * Allows the request when the handler (or its controller) has no `@Roles()` or when `req.user`
 * holds one of the listed roles; otherwise 403. Register it after the authentication guard.
 * Subclasses may override {@link forbidden} to throw their own error shape.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(protected readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    const required = this.reflector.getAllAndOverride<string[] | undefined>(ROLES_KEY, targets);
    if (!required || required.length === 0) return true;
    const user = context.switchToHttp().getRequest<{ user?: RoleBearer }>().user;
    const held = [...(user?.roles ?? []), ...(user?.role ? [user.role] : [])];
    if (held.some((r) => required.includes(r))) return true;
    throw this.forbidden(required);
  }

  protected forbidden(required: string[]): Error {
    return new ForbiddenException(`This action requires one of the roles: ${required.join(', ')}`);
  }
}
