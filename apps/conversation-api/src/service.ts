import { asDatabaseUnavailable } from '@platform/database';
import { EnvelopeErrorFilter } from '@platform/errors';
import { installRawRoutes, type ServiceDefinition } from '@platform/platform';
import { useRealtime } from '@platform/realtime';
import { OpenAccount } from './accounts/open-account';
import { ConversationApiModule } from './app.module';
import { RedisKeyPrefix } from './common/redis-key-prefix';
import { ConversationApiConfig } from './config';
import { WebhookLimits } from './rate-limit/webhook-limits';
import { whatsappWebhookRawRoute } from './webhooks/whatsapp-raw-route';
import { WhatsAppWebhookService } from './webhooks/whatsapp-webhook.service';

/** The spec's error envelope (`{success: false, error: {…}, timestamp}`), on the app's routes and its raw route alike. */
const errorFilter = () =>
  new EnvelopeErrorFilter({
    codes: { 429: 'THROTTLER_LIMIT_EXCEEDED' },
    suggestions: { 404: 'Check the path: every route of this service is under /api/v1 (see /api/docs).' },
  });

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const conversationApiService: ServiceDefinition<ConversationApiConfig> = {
  name: 'conversation-api',
  port: 3005,
  schema: 'conversation',
  config: ConversationApiConfig,
  module: (config) => ConversationApiModule.forRoot(config),
  // Socket.IO (/conversations) through the Redis adapter when REDIS_URL is set: events reach the agents of every replica.
  configure: (app, config) => {
    void useRealtime(app, { redisUrl: config.REDIS_URL, key: `${app.get(RedisKeyPrefix).value}socket.io` });
    // WhatsApp deliveries skip Express's and Nest's per-request stack (same answers: webhooks/whatsapp-raw-route.ts).
    installRawRoutes(app, { config, filter: errorFilter(), routes: [whatsappWebhookRawRoute(app.get(WhatsAppWebhookService), app.get(WebhookLimits))], mapError: asDatabaseUnavailable });
  },
  errorFilter,
  swagger: {
    title: 'conversation-api',
    version: '1.0.0',
    // The spec: interactive docs and the raw description are off when NODE_ENV=production.
    enabled: (config) => config.NODE_ENV !== 'production',
    description: [
      'Customer conversations over messaging channels: agents, teams and roles; contacts with typed custom attributes; conversations with messages, private notes, assignment and statuses; the WhatsApp Cloud API and email (IMAP in, SMTP out) channels; message search and cursor pages; analytics from reporting events. Behind the gateway at `/conversation`.',
      '',
      '**Authentication.** `POST /api/v1/auth/login` with `{email, password}` gives an access token (JWT, 15 minutes) and a refresh token (opaque, 7 days). Send `Authorization: Bearer <access_token>` on every request. ' +
        '`POST /api/v1/auth/refresh` with `{refresh_token}` returns a new pair and uses the old refresh token up; presenting a used refresh token again revokes the whole session (401 `REFRESH_TOKEN_REUSED`). `POST /api/v1/auth/logout` revokes the session. No long-lived API tokens.',
      '',
      '**Permissions.** Each route needs one permission of the caller’s role (`conversations:read`, `conversations:write`, `conversations:assign`, `contacts:read`, `contacts:write`, `attributes:manage`, `channels:manage`, `recipes:publish`, `users:manage`, `teams:manage`, `roles:manage`, …; `admin` grants all); 403 `FORBIDDEN` otherwise. ' +
        'Built-in roles: `administrator` (admin) and `agent` (conversations, contacts). Every query is limited to the caller’s account; conversations further to the channels (inboxes) the caller is a member of, except for administrators. ' +
        'Nobody grants a permission they do not hold, and only administrators grant `admin` (403 `PERMISSION_NOT_GRANTABLE`).',
      '',
      '**Responses.** `{success: true, data}`; lists `{success: true, data: [...], meta: {total, page, limit}}` (`page` from 1, `limit` 1–100, default 25).',
      '',
      '**Errors.** `{success: false, error: {code, message, statusCode, requestId, errors?, suggestion}, timestamp}` — unknown routes too (404 `NOT_FOUND`). Validation: 422 `VALIDATION_ERROR` with `errors: [{field, message, code}]`.',
      '',
      '**Rate limit.** 100 requests per minute per client (the user of a valid access token, else the address), 60-second windows counted in Redis and shared by every replica: 429 `THROTTLER_LIMIT_EXCEEDED` with `Retry-After`. ' +
        'Webhook receivers are counted per tenant instead.',
      '',
      '**Versioning.** v1 under `/api/v1`. Deprecated routes answer with `Deprecation`, `Sunset` and `Link` headers at least six months before removal.',
    ].join('\n'),
    configure: (b) => b.addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access token of POST /api/v1/auth/login' }),
  },
  commands: {
    'create-account': {
      description: 'create-account <account name> <admin email> <admin password>: opens another account (tenant) with its first administrator',
      run: async (ctx, args) => {
        const [name, email, password] = args;
        if (!name || !email || !password || password.length < 8) throw new Error('usage: create-account <account name> <admin email> <admin password (8+ characters)>');
        const created = await ctx.get(OpenAccount).execute(name, { email, name: 'Administrator', password });
        process.stdout.write(`account ${created.account.id} created with administrator ${email}\n`);
      },
    },
  },
};
