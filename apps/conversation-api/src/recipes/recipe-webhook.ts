import { Inject, Injectable, Optional } from '@nestjs/common';
import { hmacSignature, safeFetch, type LookupFn } from '@platform/http-safety';

/** How recipe webhooks reach the network: only public addresses unless a test says otherwise. */
export interface RecipeWebhookPolicy {
  allowPrivate?: boolean;
  lookup?: LookupFn;
  timeoutMs?: number;
}

export const RECIPE_WEBHOOK_POLICY = Symbol('RECIPE_WEBHOOK_POLICY');

export const RECIPE_WEBHOOK_TIMEOUT_MS = 5000;

/**
 * A recipe's `webhook` action: POSTs the event as JSON through @platform/http-safety (every address
 * the host resolves to must be public, checked when connecting, so DNS rebinding cannot reach an
 * internal service; no redirects; 5 seconds), signed with the recipe's secret:
 * `X-Recipe-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. `X-Recipe-Id` and
 * `X-Recipe-Event-Id` stay the same when a run is retried, so a receiver can drop a repeat.
 */
@Injectable()
export class RecipeWebhookCaller {
  constructor(@Optional() @Inject(RECIPE_WEBHOOK_POLICY) private readonly policy: RecipeWebhookPolicy = {}) {}

  /** The receiver's status (2xx); throws with the reason otherwise (refused address, timeout, another status). */
  async call(url: string, secret: string, ids: { recipeId: string; eventId: string }, payload: unknown): Promise<number> {
    const body = JSON.stringify(payload);
    const res = await safeFetch(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'conversation-api-recipes/1',
          'x-recipe-signature': hmacSignature(body, secret),
          'x-recipe-id': ids.recipeId,
          'x-recipe-event-id': ids.eventId,
        },
        body,
      },
      { allowPrivate: this.policy.allowPrivate, lookup: this.policy.lookup, timeoutMs: this.policy.timeoutMs ?? RECIPE_WEBHOOK_TIMEOUT_MS, redirect: 'error', maxBytes: 64 * 1024 },
    );
    if (!res.ok) throw new Error(`the receiver answered ${res.status}`);
    return res.status;
  }
}
