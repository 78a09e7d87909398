import { DetailErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { AuthApiModule } from './app.module';
import { createUserCommand, CREATE_USER_USAGE } from './bootstrap/create-user.command';
import { AuthApiConfig } from './config';

export const authApiService: ServiceDefinition<AuthApiConfig> = {
  name: 'auth-api',
  port: 3004,
  schema: 'auth',
  config: AuthApiConfig,
  module: (config) => AuthApiModule.forRoot(config),
  errorFilter: () => new DetailErrorFilter(),
  swagger: {
    title: 'auth-api',
    version: '1.0.0',
    description: [
      'Two login realms signed with one RS256 key (public keys at `GET /.well-known/jwks.json`, chosen by the token `kid`).',
      '',
      '**Part B — login API** under `/api/v1/auth`: form login, 24-hour bearer tokens (claims `sub` = email, `iat`, `exp`, `iss`, `aud` = `fiscal`).',
      '',
      '**Part G — logistics realm** under `/api/v1/logistics`: JSON login, 1-hour access tokens (claims `sub` = user id, `email`, `role`, ' +
        '`realm` = `logistics`, `sid`, `aud` = `logistics`) and 7-day opaque refresh tokens, rotated on every refresh; reusing a rotated ' +
        'refresh token revokes its whole session. Roles: `admin`, `terminal_operator`, `driver`, `company_manager`.',
      '',
      'Tokens of one realm are refused by the other (distinct `aud`).',
      '',
      '**Errors** of both realms: `{"detail": "<message>"}` — 401 (with `WWW-Authenticate: Bearer`), 403, 409, 422 (validation, the detail names each bad field), 429 (with `Retry-After`).',
      '',
      '**Rate limits**: failed login attempts (both realms) 10 per minute per client IP and account, 100 per minute per client IP ' +
        '(configurable); at the limit every attempt of that client is refused with 429 until the window ends. Successful logins do not count.',
      '',
      '**Events** (RabbitMQ topic exchange `platform.events`, stored in a transactional outbox with the change and published once the ' +
        'broker confirms, also after an outage): `auth.session_revoked` when a logistics session is revoked by logout or by refresh-token ' +
        'reuse (`sessionId` = the tokens\' `sid`, `userId`, `email`, `reason` `logout`|`reuse_detected`, `revokedAt`), so services verifying ' +
        'tokens by signature can refuse that session before its tokens expire; `auth.user_created` for every user created in either realm ' +
        '(`realm`, `userId`, `email`, `role`, `createdAt`). A broker outage does not affect logins: `/readyz` reports `broker` down meanwhile.',
    ].join('\n'),
    configure: (b) => b.addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
  },
  commands: {
    'create-user': {
      description: CREATE_USER_USAGE,
      run: (ctx, args) => createUserCommand(ctx, args),
    },
  },
};
