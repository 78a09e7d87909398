import { Injectable, SetMetadata, applyDecorators, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, SkipThrottle, ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import { ConversationApiConfig } from '../config';
import { ApiError } from '@platform/errors';

const WEBHOOK = 'conversation:webhook-throttle';
export const ONE_MINUTE_MS = 60_000;

/**
 * A provider's webhook receiver: not counted per client (the provider posts from a few addresses for
 * every tenant) but per tenant, the account owning the channel (the `webhook` throttler).
 */
export function WebhookThrottle(): MethodDecorator & ClassDecorator {
  return applyDecorators(SkipThrottle({ default: true }), SetMetadata(WEBHOOK, true));
}

export function isWebhookRoute(context: ExecutionContext): boolean {
  return Reflect.getMetadata(WEBHOOK, context.getHandler()) === true || Reflect.getMetadata(WEBHOOK, context.getClass()) === true;
}

/**
 * @nestjs/throttler's guard with this service's key and error: one counter per client (or tenant)
 * over every route — not one per route — in 60-second windows, and 429 `THROTTLER_LIMIT_EXCEEDED`
 * in the error envelope with `Retry-After`.
 */
@Injectable()
export class ConversationThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly config: ConversationApiConfig,
  ) {
    super(options, storage, reflector);
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${this.config.CONVERSATION_REDIS_KEY_PREFIX}throttle:${name}:${tracker}`;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const seconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw new ApiError(429, 'THROTTLER_LIMIT_EXCEEDED', `Too many requests: the limit is ${detail.limit} per minute`, {
      suggestion: `Wait ${seconds} seconds (Retry-After) before sending more requests.`,
      headers: { 'Retry-After': String(seconds) },
    });
  }
}
