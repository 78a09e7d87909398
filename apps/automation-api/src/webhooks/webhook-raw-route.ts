import type { RawExchange, RawRoute } from '@platform/platform';
import type { WebhooksService } from './webhooks.service';

const TEXT_PLAIN = 'text/plain; charset=utf-8';
const WEBHOOK_PATH = /^\/webhooks\/instagram\/?(?:\?|$)/;
/** Bodies read here at most; a larger one (up to the app's body limit) goes through Express. */
const MAX_BYTES = 512 * 1024;
/**
 * The platform's webhook deliveries (`POST /webhooks/instagram`) answered before Express and Nest
 * (@platform/platform's installRawRoutes), with the same work and answers as WebhooksController.receive: a JSON object
 * (UTF-8, not compressed, with a Content-Length) is read and parsed as the platform's parser does
 * (RawExchange.readJsonObject),
 * then WebhooksService checks the signature over the raw bytes and stores the items (200
 * `EVENT_RECEIVED` once committed, as `res.send` writes it: RawExchange.send; its errors in the
 * app's error shape). Everything else — another
 * content type or encoding, a chunked or large body, a body the parser would refuse (not an object
 * at its first byte, malformed, nested too deep) — goes to Express with the body replayed, for the
 * answers of the platform's parsers.
 */
export function webhookRawRoute(webhooks: WebhooksService): RawRoute {
  return {
    match: (method, url) => (method === 'POST' && WEBHOOK_PATH.test(url) ? '/webhooks/instagram' : null),
    handle: ({ req, res, send, fail, readJsonObject }: RawExchange) => {
      const answer = (body: Record<string, unknown>, raw: Buffer) => {
        // As Nest does before the handler runs: the route's status and its @Header (an error's answer keeps the header).
        res.statusCode = 200;
        res.setHeader('content-type', TEXT_PLAIN);
        const signature = req.headers['x-hub-signature-256'];
        webhooks.receive(raw, typeof signature === 'string' ? signature : undefined, body).then(() => {
          try {
            send(200, 'EVENT_RECEIVED', TEXT_PLAIN);
          } catch (err) {
            fail(err);
          }
        }, fail);
      };
      readJsonObject(MAX_BYTES, answer);
    },
  };
}
