import { EnvelopeErrorFilter } from '@platform/errors';
import { installRawRoutes, type ServiceDefinition } from '@platform/platform';
import { ProjectAccessGuard } from './access/project-access.guard';
import { EmailApiModule } from './app.module';
import { EmailApiConfig, SESSION_COOKIE } from './config';
import { trackRawRoute } from './events/track-raw-route';
import { TrackService } from './events/track.service';
import { installTrackingFastPath } from './tracking/tracking-fast-path';

const errorFilter = () => new EnvelopeErrorFilter({ codes: { 429: 'RATE_LIMIT_EXCEEDED' } });

export const emailApiService: ServiceDefinition<EmailApiConfig> = {
  name: 'email-api',
  port: 3002,
  schema: 'email',
  config: EmailApiConfig,
  module: (config) => EmailApiModule.forRoot(config),
  // JSON bodies up to the platform's 1 MB; the routes that carry more raise their own (common/body-limits.ts).
  errorFilter,
  configure: (app, config) => {
    // The open pixel and tracked links are answered before Express and Nest (tracking/tracking-fast-path.ts),
    installTrackingFastPath(app, config);
    // and so is POST /v1/track (events/track-raw-route.ts), in front of them.
    installRawRoutes(app, {
      config,
      filter: errorFilter(),
      routes: [trackRawRoute(app.get(ProjectAccessGuard), app.get(TrackService))],
    });
  },
  swagger: {
    title: 'email-api',
    version: '1.0.0',
    description: [
      'Email sending and marketing platform: accounts and projects, keys, contacts, events, transactional sending, address verification, the activity feed, sending domains with DKIM, templates, segments and campaigns.',
      '',
      '**Keys.** Every project owns one public key (`pk_…`) and one secret key (`sk_…`); the project comes from the key. Send `Authorization: Bearer <key>`. ' +
        'The secret key works on every endpoint, the public key only on `POST /v1/track` (elsewhere 401 `INVALID_API_KEY`). Missing key: 401 `MISSING_AUTH`; unknown or rotated key: 401 `INVALID_API_KEY`; disabled project: 403 `PROJECT_DISABLED`. ' +
        'The secret key is stored hashed: it is shown once, when the project is created or the keys are rotated.',
      '',
      `**Dashboard.** Dashboard endpoints also accept the session cookie \`${SESSION_COOKIE}\` set by \`POST /auth/login\` or an OAuth login (\`GET /auth/oauth/{provider}\`, GitHub and Google when configured) (HttpOnly, SameSite=Lax, 7 days), with the project chosen by the \`X-Project-Id\` header; membership and role (OWNER, ADMIN, MEMBER) are checked (403 \`PROJECT_ACCESS_DENIED\` / \`FORBIDDEN\`).`,
      '',
      '**Responses.** `/v1/*` answers `{success: true, data}`; dashboard endpoints return the resource itself. Lists use cursor pagination `{data, cursor, hasMore, total}` (`limit` default 20, max 100; `total` only on the first page, 0 on later pages).',
      '',
      '**Errors** (every one): `{success: false, error: {code, message, statusCode, requestId, errors?, suggestion}, timestamp}`; 400 malformed, 401, 403, 404, 409, 413 too large, 422 `VALIDATION_ERROR` with `errors: [{field, message, code}]`, 429 `RATE_LIMIT_EXCEEDED`, 500. `requestId` matches the `X-Request-Id` header and the log line of the request.',
      '',
      '**Rate limit.** 1000 requests per minute per project (fixed one-minute windows shared by every replica through Redis). Every project-scoped answer carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds); 429 adds `Retry-After`.',
      '',
      '**Ids.** Contacts `cnt_…`, events `evt_…`, emails `eml_…`, jobs `job_…`; projects, users, domains, templates, segments and campaigns are UUIDs.',
      '',
      '**Marketing.** A sending domain (`POST /domains`) is `pending` until its DKIM, SPF and return-path records resolve (checked every 5 minutes, or now with `GET /domains/{id}/verify`); templates and campaigns send `from` verified domains only, DKIM-signed. Campaigns move DRAFT → SCHEDULED → SENDING → SENT (or CANCELLED), throttled per project. Segments and campaigns page as `{data, total, page, pageSize, totalPages}`.',
    ].join('\n'),
    configure: (b) => b.addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Project key: pk_… (POST /v1/track only) or sk_…' }).addCookieAuth(SESSION_COOKIE),
  },
};
