import { UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { hashApiKey } from './api-key';
import { IS_PUBLIC_KEY } from './decorators';
import { bearerToken, type GuardRequest } from './jwt-guard';

/**
 * API-key guard pattern: the key is read from `X-API-Key` or `Authorization: Bearer` (override
 * {@link extractKey} for a body field or another header), hashed with SHA-256 and handed to the
 * app's {@link resolve}, which looks the hash up (keys are stored hashed only) and returns the
 * principal or null. The principal is stored on `req.user`.
 */
export abstract class ApiKeyGuard<TPrincipal> implements CanActivate {
  protected constructor(protected readonly reflector?: Reflector) {}

  /** Finds the principal owning the key whose SHA-256 hex digest is `keyHash`, or null. */
  protected abstract resolve(keyHash: string, req: GuardRequest): Promise<TPrincipal | null>;

  protected extractKey(req: GuardRequest): string | undefined {
    const header = req.headers['x-api-key'];
    const value = Array.isArray(header) ? header[0] : header;
    return value?.trim() || bearerToken(req);
  }

  protected unauthorized(): Error {
    return new UnauthorizedException('A valid API key is required');
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector?.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<GuardRequest>();
    const key = this.extractKey(req);
    if (!key) throw this.unauthorized();
    const principal = await this.resolve(hashApiKey(key), req);
    if (!principal) throw this.unauthorized();
    req.user = principal;
    return true;
  }
}
