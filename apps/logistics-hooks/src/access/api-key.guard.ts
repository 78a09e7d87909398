import { Inject, Injectable, UseGuards, applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ApiKeyGuard, hashApiKey, safeEqual, type GuardRequest } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { LogisticsHooksConfig } from '../config';

export interface ApiKeyPrincipal {
  kind: 'api-key';
}

/**
 * `LOGISTICS_API_KEY` in the body field `api_key` (the spec's webhooks), or in `X-API-Key` /
 * `Authorization: Bearer` (error reports from scripts). Compared in constant time (SHA-256 of both,
 * then `timingSafeEqual`). Missing or wrong → 401 `INVALID_API_KEY`; unset in the service → every key is refused.
 */
@Injectable()
export class LogisticsApiKeyGuard extends ApiKeyGuard<ApiKeyPrincipal> {
  private readonly expectedHash: string | null;

  constructor(reflector: Reflector, @Inject(LogisticsHooksConfig) config: LogisticsHooksConfig) {
    super(reflector);
    this.expectedHash = config.LOGISTICS_API_KEY ? hashApiKey(config.LOGISTICS_API_KEY) : null;
  }

  protected override extractKey(req: GuardRequest): string | undefined {
    const body = (req as GuardRequest & { body?: unknown }).body;
    const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).api_key : undefined;
    if (typeof fromBody === 'string' && fromBody !== '') return fromBody;
    return super.extractKey(req);
  }

  protected async resolve(keyHash: string): Promise<ApiKeyPrincipal | null> {
    if (!this.expectedHash) return null;
    return safeEqual(keyHash, this.expectedHash) ? { kind: 'api-key' } : null;
  }

  protected override unauthorized(): Error {
    return new ApiError(401, 'INVALID_API_KEY', 'A valid api_key is required', {
      suggestion: 'Send the service key (LOGISTICS_API_KEY) in the body field api_key.',
    });
  }
}

/** The handler needs LOGISTICS_API_KEY (see {@link LogisticsApiKeyGuard}). */
export function ApiKeyAccess(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(LogisticsApiKeyGuard),
    ApiSecurity('api_key'),
    ApiUnauthorizedResponse({ description: '`INVALID_API_KEY`: `api_key` missing or wrong' }),
  );
}

