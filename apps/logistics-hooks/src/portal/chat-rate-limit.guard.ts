import { Injectable, UseGuards, applyDecorators, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { RateLimiter, rateLimitHeaders } from '@platform/rate-limit';
import type { Request, Response } from 'express';

/** Public chat: requests per client IP per minute (spec, part F "Limits"). */
export const CHAT_LIMIT_PER_MINUTE = 10;

/**
 * Counts every request of a client IP (before its body is validated, so malformed requests count
 * too) on the shared `RateLimiter` (Redis with REDIS_URL: one count across replicas); `RateLimit-*`
 * headers on every answer, 429 `RATE_LIMIT_EXCEEDED` with `Retry-After` beyond the limit.
 */
@Injectable()
export class ChatRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const decision = await this.limiter.hit(`chat:${req.ip ?? 'unknown'}`, CHAT_LIMIT_PER_MINUTE, 60_000);
    const { 'Retry-After': retryAfter, ...headers } = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (decision.allowed) return true;
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `The public chat answers ${CHAT_LIMIT_PER_MINUTE} requests per minute per client`, {
      suggestion: `Wait ${retryAfter} seconds (Retry-After) before asking again.`,
      headers: { 'Retry-After': retryAfter },
    });
  }
}

/** The handler is limited to {@link CHAT_LIMIT_PER_MINUTE} requests per minute per client IP. */
export function ChatRateLimit(): MethodDecorator {
  return applyDecorators(UseGuards(ChatRateLimitGuard), ApiTooManyRequestsResponse({ description: '`RATE_LIMIT_EXCEEDED` with `Retry-After`' }));
}
