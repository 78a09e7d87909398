import { ok } from '@platform/envelopes';
import type { RawExchange, RawRoute } from '@platform/platform';
import type { WebhookLimits } from '../rate-limit/webhook-limits';
import type { WhatsAppWebhookService } from './whatsapp-webhook.service';

/** A delivery's path; its channel id segment as the route's parameter (anything else in it goes through Express). */
const DELIVERY_PATH = /^\/api\/v1\/webhooks\/whatsapp\/([0-9A-Za-z-]{1,64})\/?(?:\?|$)/;
/** Bodies read here at most; a larger one (up to the app's body limit) goes through Express. */
const MAX_BYTES = 512 * 1024;

/**
 * WhatsApp deliveries (`POST /api/v1/webhooks/whatsapp/:channelId`) answered before Express and Nest
 * (@platform/platform's installRawRoutes), with the same work and answers as
 * WhatsAppWebhookController.receive and the guards in front of it: a JSON object (UTF-8, not
 * compressed, with a Content-Length) read and parsed as the platform's parser does
 * (RawExchange.readJsonObject), the tenant's
 * webhook rate limit (WebhookLimits: `X-RateLimit-*-webhook`, or 429), then WhatsAppWebhookService
 * checks the signature over the raw bytes and stores the messages, answered 200
 * `{success: true, data}` once committed (Express's `res.json`, as Nest sends it), errors in the
 * app's error shape. Everything else — another content type or encoding, a chunked or large body, a
 * body the parser would refuse or read otherwise (not an object at its first byte, malformed,
 * nested too deep) — goes to Express with the body replayed, for the answers of the platform's parsers.
 */
export function whatsappWebhookRawRoute(webhooks: WhatsAppWebhookService, limits: WebhookLimits): RawRoute {
  return {
    match: (method, url) => (method === 'POST' && DELIVERY_PATH.test(url) ? '/api/v1/webhooks/whatsapp/:channelId' : null),
    handle: ({ req, res, json, fail, readJsonObject }: RawExchange) => {
      const channelId = DELIVERY_PATH.exec(req.url)![1];
      readJsonObject(MAX_BYTES, (body, raw) => {
        const signature = req.headers['x-hub-signature-256'];
        limits
          .hit(channelId)
          .then((decision) => {
            limits.answer(decision, res);
            return webhooks.receive(channelId, raw, typeof signature === 'string' ? signature : undefined, body, req.id);
          })
          .then((result) => json(200, ok(result)))
          .catch(fail);
      });
    },
  };
}
