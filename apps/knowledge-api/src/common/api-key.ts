import { CanActivate, ExecutionContext, Injectable, applyDecorators } from '@nestjs/common';
import { ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { safeEqual } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { KnowledgeApiConfig } from '../config';

/**
 * KNOWLEDGE_API_KEY, when set, guards every `/api/*` route and every Socket.IO namespace: the key
 * comes in `X-API-Key` or `Authorization: Bearer` (sockets: also `auth.apiKey` of the handshake).
 */
export function keyFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const direct = first(headers['x-api-key'])?.trim();
  if (direct) return direct;
  const auth = first(headers.authorization);
  const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth.trim()) : null;
  return m?.[1];
}

export function keyAccepted(expected: string | undefined, given: string | undefined): boolean {
  if (!expected) return true;
  return !!given && safeEqual(given, expected);
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly config: KnowledgeApiConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    if (keyAccepted(this.config.KNOWLEDGE_API_KEY, keyFromHeaders(req.headers))) return true;
    throw new ApiError(401, 'UNAUTHORIZED', 'A valid API key is required: send KNOWLEDGE_API_KEY in X-API-Key or Authorization: Bearer');
  }
}

/** Swagger of a controller behind {@link ApiKeyGuard}: the key (scheme `api_key`) and its 401 (when KNOWLEDGE_API_KEY is set). */
export function ApiKeyDocs(): ClassDecorator {
  return applyDecorators(
    ApiSecurity('api_key'),
    ApiUnauthorizedResponse({ description: '`{"error"}`: KNOWLEDGE_API_KEY is set and `X-API-Key` (or `Authorization: Bearer`) is missing or wrong' }),
  );
}
