import { UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { IS_PUBLIC_KEY } from './decorators';

/** The parts of an HTTP request the guards read (Express' request satisfies it). */
export interface GuardRequest {
  headers: Record<string, string | string[] | undefined>;
  user?: unknown;
}

/**
 * Base of the token guards: skips `@Public()` handlers, extracts the token, lets the app turn it
 * into a principal (verify the signature and claims, load the user, check it is active) and stores
 * that on `req.user`. Any failure — no token, bad token, `authenticate` returning null or
 * throwing — ends in {@link unauthorized}, so the client never learns which check failed.
 */
export abstract class TokenAuthGuard<TUser> implements CanActivate {
  protected constructor(protected readonly reflector?: Reflector) {}

  /** The raw token of the request, or undefined when it carries none. */
  protected abstract extractToken(req: GuardRequest): string | undefined;

  /** Verifies the token and returns the principal, or null to refuse. */
  protected abstract authenticate(token: string, req: GuardRequest): Promise<TUser | null>;

  /** The error thrown on refusal; override to use the app's error shape. */
  protected unauthorized(): Error {
    return new UnauthorizedException('Could not validate credentials');
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector?.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<GuardRequest>();
    const token = this.extractToken(req);
    if (!token) throw this.unauthorized();
    let user: TUser | null;
    try {
      user = await this.authenticate(token, req);
    } catch {
      user = null;
    }
    if (!user) throw this.unauthorized();
    req.user = user;
    return true;
  }
}

/** `Authorization: Bearer <token>` (scheme case-insensitive), or undefined. */
export function bearerToken(req: GuardRequest): string | undefined {
  const header = req.headers['authorization'];
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(value ?? '');
  return match?.[1];
}

/** The value of one cookie from the `Cookie` header (no cookie-parser needed), or undefined. */
export function cookieValue(req: GuardRequest, name: string): string | undefined {
  const header = req.headers['cookie'];
  const raw = Array.isArray(header) ? header.join('; ') : header;
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    try {
      return decodeURIComponent(value) || undefined;
    } catch {
      return value || undefined;
    }
  }
  return undefined;
}

/** A token guard reading `Authorization: Bearer <jwt>`. Subclass it and implement `authenticate`. */
export abstract class JwtBearerGuard<TUser> extends TokenAuthGuard<TUser> {
  protected extractToken(req: GuardRequest): string | undefined {
    return bearerToken(req);
  }
}

/** A token guard reading a JWT from the cookie named by `cookieName`. */
export abstract class JwtCookieGuard<TUser> extends TokenAuthGuard<TUser> {
  protected abstract readonly cookieName: string;

  protected extractToken(req: GuardRequest): string | undefined {
    return cookieValue(req, this.cookieName);
  }
}
