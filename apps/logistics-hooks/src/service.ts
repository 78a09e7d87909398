import { EnvelopeErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { useRealtime } from '@platform/realtime';
import { LogisticsHooksModule } from './app.module';
import { LogisticsHooksConfig } from './config';

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const logisticsHooksService: ServiceDefinition<LogisticsHooksConfig> = {
  name: 'logistics-hooks',
  port: 3008,
  schema: 'logistics',
  config: LogisticsHooksConfig,
  module: (config) => LogisticsHooksModule.forRoot(config),
  // Part F shows no error shape; its webhook answers carry `success`, so errors use the envelope:
  // {success: false, error: {code, message, statusCode, requestId, errors?, suggestion}, timestamp}.
  errorFilter: () => new EnvelopeErrorFilter(),
  // JSON bodies up to the platform's 1 MB; the invoice upload (16 MB) and the batch tracking (4 MB) raise their own.
  // Socket.IO (namespace /errors) through Redis when REDIS_URL is set: a broadcast reaches every replica's dashboards.
  configure: (app, config) => void useRealtime(app, { redisUrl: config.REDIS_URL, key: `${config.REDIS_KEY_PREFIX}socket.io` }),
  swagger: {
    title: 'logistics-hooks',
    version: '1.0.0',
    description: [
      'Part F of spec 002 (task webhook, error monitoring, public portal, ocean tracking over DCSA Track & Trace, batch truck tracking and its email report, ' +
        'the CRM data hub, accounts-payable invoices, arrival-notice audits) and the live error dashboard page (`/dashboard`), behind the gateway at `/logistics`.',
      '',
      '**Authentication**: the webhooks (`/{prefix}-tasks`, `/ocean-track`, `/{prefix}-batch-track`, `/{prefix}-email-report`, `/{crm}-data`, `/ap-invoice-process`, `/ap-expectations`, `/an-audit`) and `POST /api/errors/report` take `LOGISTICS_API_KEY` in the body field `api_key` (also accepted as `X-API-Key`), compared in constant time; ' +
        'missing or wrong → 401 `INVALID_API_KEY`. The error dashboard endpoints take an access token of auth-api\'s logistics realm (`Authorization: Bearer`), verified against ' +
        'auth-api\'s JWKS (`AUTH_JWKS_URL`; `iss` = `AUTH_ISSUER`, `aud` = `logistics`, `realm` = `logistics`); role `admin` only (others 403). The portal endpoints are public and rate-limited per IP; they answer shipment facts only, never internal tasks.',
      '',
      '**Errors**: `{success: false, error: {code, message, statusCode, requestId, errors?, suggestion}, timestamp}`; validation → 422 `VALIDATION_ERROR` listing each field.',
      '',
      '**Real time**: Socket.IO at the default path `/socket.io`, namespace `/errors`, token in the handshake (`auth: {token}`); events `error_created` (a new record) and ' +
        '`error_updated` (a repeat; at most one per record per second), each carrying the record, on every replica (Redis adapter with `REDIS_URL`; the report travels as `logistics.error_reported` through the outbox). ' +
        'A socket is disconnected (`session_ended` first) when its token expires or auth-api revokes its session.',
      '',
      'Choices where the spec says "not shown" are documented on each operation: task status moves, error state moves, response bodies of the task actions, the DCSA mapping, ' +
        'truck categories, CRM formulas, invoice fields and status codes, the audit body and score.',
    ].join('\n'),
    configure: (b) => b.addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }).addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api_key'),
  },
};
