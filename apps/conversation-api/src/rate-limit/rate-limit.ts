import { SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { resetSeconds, type RateLimitDecision } from '@platform/rate-limit';

const WEBHOOK = 'conversation:webhook-rate-limit';
export const ONE_MINUTE_MS = 60_000;

/**
 * A provider's webhook receiver: not counted per client (the provider posts from a few addresses for
 * every tenant) but per tenant, the account owning the channel (CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE).
 */
export const WebhookRateLimit = (): MethodDecorator & ClassDecorator => SetMetadata(WEBHOOK, true);

export function isWebhookRoute(context: ExecutionContext): boolean {
  return Reflect.getMetadata(WEBHOOK, context.getHandler()) === true || Reflect.getMetadata(WEBHOOK, context.getClass()) === true;
}

/**
 * The headers of an allowed request, named as this service has always sent them (the names of
 * @nestjs/throttler, which counted them first): `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (seconds), each with `-webhook` appended on webhook routes.
 */
export function allowedHeaders(decision: RateLimitDecision, suffix: '' | '-webhook'): Record<string, string> {
  return {
    [`X-RateLimit-Limit${suffix}`]: String(decision.limit),
    [`X-RateLimit-Remaining${suffix}`]: String(decision.remaining),
    [`X-RateLimit-Reset${suffix}`]: String(resetSeconds(decision)),
  };
}

/** 429 `THROTTLER_LIMIT_EXCEEDED` in the error envelope with `Retry-After` (seconds until the window resets). */
export function limitExceeded(decision: RateLimitDecision): ApiError {
  const seconds = resetSeconds(decision);
  return new ApiError(429, 'THROTTLER_LIMIT_EXCEEDED', `Too many requests: the limit is ${decision.limit} per minute`, {
    suggestion: `Wait ${seconds} seconds (Retry-After) before sending more requests.`,
    headers: { 'Retry-After': String(seconds) },
  });
}
