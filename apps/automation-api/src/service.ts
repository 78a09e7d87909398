import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { asDatabaseUnavailable } from '@platform/database';
import { PlainErrorFilter } from '@platform/errors';
import { installRawRoutes, type ServiceDefinition } from '@platform/platform';
import { AccountsService } from './accounts/accounts.service';
import { AutomationApiModule } from './app.module';
import { clickRawRoute } from './clicks/click-raw-route';
import { ClicksService } from './clicks/clicks.service';
import { AutomationConfig } from './config';
import { ConnectService } from './connect/connect.service';
import { MCP_RESULT_MODELS } from './mcp/mcp-tools';
import { McpService } from './mcp/mcp.service';
import { webhookRawRoute } from './webhooks/webhook-raw-route';
import { WebhooksService } from './webhooks/webhooks.service';

export const automationApiService: ServiceDefinition<AutomationConfig> = {
  name: 'automation-api',
  port: 3001,
  schema: 'automation',
  config: AutomationConfig,
  module: (config) => AutomationApiModule.forRoot(config),
  errorFilter: () => new PlainErrorFilter(),
  configure: (app, config) => {
    // The MCP tools take their input schemas from the REST operations' OpenAPI description.
    app.get(McpService).useOpenApi(SwaggerModule.createDocument(app, new DocumentBuilder().build(), { extraModels: MCP_RESULT_MODELS }));
    // The click redirect and the platform's webhook deliveries skip Express's and Nest's per-request stack.
    installRawRoutes(app, {
      config,
      filter: new PlainErrorFilter(),
      routes: [clickRawRoute(app.get(ClicksService)), webhookRawRoute(app.get(WebhooksService))],
      mapError: asDatabaseUnavailable,
    });
  },
  swagger: {
    title: 'Comment and DM automation API',
    version: '1.0.0',
    description: [
      'Automates comment replies and direct messages for connected social-platform business accounts. All paths under `/api/v1`, all bodies JSON.',
      '',
      'Authentication: `Authorization: Bearer <API_KEY>` on every request; the key binds the request to one account. A missing or invalid key gives 401 `{error}`.',
      '',
      'Errors: `{error: string}` with 400 (validation, naming the field), 401, 404 (unknown id in this account), 409 (state conflict), 502 (the social platform API failed).',
      '',
      'Choices where the spec says "not shown": operation paths `GET|PATCH|DELETE /automations/{id}`, `POST /automations/{id}/go_live|pause|resume|finish_migration|attach`, ' +
        '`POST /automations/import`, `GET /automations/{id}/funnel`, `GET /funnel`, `GET /contacts`, `GET|PATCH /contacts/{ig_id}`, `GET /posts/{id}/comments`, `GET /events`, `POST /preview`. ' +
        'Paginated lists (contacts, events) answer `{data, next_cursor}`. Timestamps are ISO 8601 UTC except AutomationSummary.updated_at (`YYYY-MM-DD HH:MM:SS` UTC). ' +
        'Post.type is `reel`, `image`, `video`, `carousel` or `story`. Automations answer only when status is `active` and `active` is true; pause sets active false, resume sets it true.',
      '',
      'Engine (outside `/api/v1`, no API key): `GET|POST /webhooks/instagram` (platform verification and receiver, `X-Hub-Signature-256` over the raw body, 401 when wrong), ' +
        '`GET /r/{code}` (click-tracking redirect, 302; 404 for an unknown code). Development only (never with NODE_ENV=production, and only without IG credentials): `/sandbox/*`.',
      '',
      'Customer webhooks (`webhook_url`, events `email_captured` and `link_sent`): POST of CustomerWebhook `{event, occurred_at, automation {id, name}, contact {ig_id, username, email}, run_id, link?}` ' +
        '(see the CustomerWebhookDto schema), header `X-Service-Signature: sha256=<HMAC-SHA256 hex of the body>` when `webhook_secret` is set; retried with exponential backoff, each attempt logged as an Event (`webhook_retry`, `webhook_delivered`, `webhook_failed`).',
      '',
      'Event.kind values written by the engine: `triggered`, `public_reply_sent`, `dm_sent`, `button_tapped`, `gated`, `gate_passed`, `email_asked`, `email_retry`, `email_captured`, `email_expired`, ' +
        '`link_sent`, `link_resent`, `link_clicked`, `followed_up`, `follow_up_outside_window`, `follow_up_not_needed`, `follow_status_unknown`, `skipped` (once_per_user), `skipped_other_tool`, ' +
        '`send_uncertain`, `template_fallback`, `error`, `reel_attached`, `reel_suggested`, `reel_expired`, plus the automation changes of part 1. reel_suggestion is `{media_id, permalink, reason, at}`.',
      '',
      'Publishing: `POST /videos` (the file as the body, streamed to storage), `/reels` (scheduled reels through the platform\'s content-publishing flow: container → status → publish; ' +
        'statuses scheduled, uploading, processing, ready, publishing, published, failed, cancelled), `/planned_posts` (one post to instagram and youtube, idempotency_key, per-target status, partial).',
      '',
      'Connecting an account (outside `/api/v1`, no API key; the secret of a connect link printed by `create-account` / `connect-account` is the credential): `GET /connect/instagram?link=` (HTML page), ' +
        '`POST /connect/instagram/start` (303 to the platform\'s OAuth authorization window, state single-use, cookie-bound), `GET /connect/instagram/callback` (code → short-lived → long-lived token, stored encrypted; HTML result).',
      '',
      'MCP: `POST /mcp` (Streamable HTTP, stateless, same bearer key) offers one tool per operation of this API with the same fields, plus check_follower, subscribe_webhooks, refresh_token and billing_status.',
    ].join('\n'),
    configure: (b) => b.addBearerAuth(),
  },
  commands: {
    'create-account': {
      description: 'create-account [name]: creates an account, prints its new API key (shown once) and a link that connects it through the platform login',
      run: async (ctx, args) => {
        const { account, apiKey } = await ctx.get(AccountsService).create({ name: args[0] ?? 'account' });
        process.stdout.write(`account ${account.id} (${account.name})\nAPI key: ${apiKey}\n`);
        process.stdout.write(await connectLinkText(ctx.get(ConnectService), account.id));
      },
    },
    'connect-account': {
      description: 'connect-account <account id>: prints a new link to the page that connects the account through the platform login',
      run: async (ctx, args) => {
        const id = Number(args[0]);
        if (!/^\d{1,9}$/.test(args[0] ?? '') || id < 1) throw new Error('usage: connect-account <account id>');
        const service = ctx.get(ConnectService);
        if (service.unavailable) throw new Error(`connecting through the platform login is off: ${service.unavailable}`);
        process.stdout.write(await connectLinkText(service, id));
      },
    },
  },
};

/** The connect link lines of the commands (or why there is none). */
async function connectLinkText(service: ConnectService, accountId: number): Promise<string> {
  if (service.unavailable) return `Connect: set IG_APP_ID, IG_APP_SECRET and PUBLIC_BASE_URL (or IG_OAUTH_REDIRECT_URL) to connect through the platform login (${service.unavailable}), or start with IG_ACCESS_TOKEN.\n`;
  const link = await service.createLink(accountId);
  return `Connect it (open once, in a browser, until ${link.expires_at.toISOString()}): ${link.url}\n`;
}
