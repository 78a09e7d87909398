import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { bearerToken } from '@platform/auth';
import { RateLimiter } from '@platform/rate-limit';
import type { Request, Response } from 'express';
import { AccessTokens } from '../auth/access-tokens';
import { ConversationApiConfig } from '../config';
import { allowedHeaders, isWebhookRoute, limitExceeded, ONE_MINUTE_MS } from './rate-limit';
import { WebhookLimits } from './webhook-limits';

/**
 * The spec's limit on every route: CONVERSATION_RATE_LIMIT_PER_MINUTE (100) requests per client in
 * 60-second windows, one budget over all routes, the client being the user of a valid access token,
 * else the address; webhook receivers count per tenant instead (CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE).
 * Counted on the app's `RateLimiter` (@platform/rate-limit: Redis shared by the replicas with
 * REDIS_URL, this process's memory while Redis fails or without it), refused requests too.
 * A global guard registered before the access guard, so floods are counted before tokens are checked.
 */
@Injectable()
export class RequestRateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: ConversationApiConfig,
    private readonly tokens: AccessTokens,
    private readonly limits: WebhookLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    if (isWebhookRoute(context)) {
      const raw = req.params?.channelId;
      this.limits.answer(await this.limits.hit(typeof raw === 'string' ? raw : ''), res);
      return true;
    }
    const decision = await this.limiter.hit(`api:${await this.clientOf(req)}`, this.config.CONVERSATION_RATE_LIMIT_PER_MINUTE, ONE_MINUTE_MS);
    if (!decision.allowed) {
      const refused = limitExceeded(decision);
      res.setHeader('Retry-After', refused.headers!['Retry-After']);
      throw refused;
    }
    for (const [name, value] of Object.entries(allowedHeaders(decision, ''))) res.setHeader(name, value);
    return true;
  }

  private async clientOf(req: Request): Promise<string> {
    const token = bearerToken(req as never);
    const claims = token ? await this.tokens.verify(token) : null;
    return claims ? `user:${claims.sub}` : `ip:${req.ip ?? 'unknown'}`;
  }
}
