import { Inject, Injectable, SetMetadata, UseGuards, applyDecorators, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { RateLimiter, rateLimitHeaders } from '@platform/rate-limit';
import type { Request, Response } from 'express';
import { LogisticsHooksConfig } from '../config';

/** Public chat: requests per client IP per minute (spec, part F "Limits"). */
export const CHAT_LIMIT_PER_MINUTE = 10;

type Bucket = 'chat' | 'track' | 'login';

/** Dashboard login attempts per client IP per minute. */
export const LOGIN_LIMIT_PER_MINUTE = 10;
const BUCKET = 'logistics:public-rate-limit';

/**
 * Counts every request of a client IP to one public route (before its body is validated, so malformed
 * requests count too) on the shared `RateLimiter` (Redis with REDIS_URL: one count across replicas):
 * the chat {@link CHAT_LIMIT_PER_MINUTE} per minute, track-public PORTAL_TRACK_LIMIT_PER_MINUTE, the
 * dashboard login {@link LOGIN_LIMIT_PER_MINUTE};
 * `RateLimit-*` headers on every answer, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After` beyond the limit.
 */
@Injectable()
export class PublicRateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
    @Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const bucket = this.reflector.get<Bucket>(BUCKET, context.getHandler()) ?? 'chat';
    const limit = bucket === 'chat' ? CHAT_LIMIT_PER_MINUTE : bucket === 'login' ? LOGIN_LIMIT_PER_MINUTE : this.config.PORTAL_TRACK_LIMIT_PER_MINUTE;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const decision = await this.limiter.hit(`${bucket}:${req.ip ?? 'unknown'}`, limit, 60_000);
    const { 'Retry-After': retryAfter, ...headers } = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (decision.allowed) return true;
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `This public route answers ${limit} requests per minute per client`, {
      suggestion: `Wait ${retryAfter} seconds (Retry-After) before asking again.`,
      headers: { 'Retry-After': retryAfter },
    });
  }
}

/** The handler is limited per client IP per minute (the bucket's limit, see {@link PublicRateLimitGuard}). */
export function PublicRateLimit(bucket: Bucket): MethodDecorator {
  return applyDecorators(
    SetMetadata(BUCKET, bucket),
    UseGuards(PublicRateLimitGuard),
    ApiTooManyRequestsResponse({ description: '`RATE_LIMIT_EXCEEDED` with `Retry-After`' }),
  );
}
