import type { ServiceDefinition } from '@platform/platform';
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName } from '@platform/registry';
import { GatewayModule } from './app.module';
import { GatewayConfig } from './config';
import { GatewayErrorFilter } from './http/gateway-error.filter';
import { GatewayProxy } from './proxy/gateway-proxy';
import { defaultUpstream } from './routes/route-table';

const servicesTable = SERVICES_BEHIND_GATEWAY.map(
  (s) => `| ${s.name} | \`${s.prefix}\` | [${s.prefix}/api/docs](${s.prefix}/api/docs) | \`${upstreamEnvName(s.name)}\` (default ${defaultUpstream(s)}) |`,
).join('\n');

const description = `The single entry point of the platform. A request to \`/<prefix>/<path>\` is forwarded to the
service behind that prefix as \`/<path>\` (query string kept): \`GET /auth/api/v1/auth/me\` reaches auth-api's
\`GET /api/v1/auth/me\`. Method, headers (hop-by-hop ones removed; \`X-Forwarded-For\`, \`-Proto\`, \`-Host\`
and \`-Prefix\` set), body and status pass through unchanged; bodies are streamed both ways, WebSocket upgrades
are proxied, and \`X-Request-Id\` is added when the client sent none and returned on the response.

When a service cannot be reached (connection refused, or silent for \`GATEWAY_TIMEOUT_MS\`) the answer is
\`502 {statusCode, error: "Bad Gateway", message: "<service> is unavailable", service}\`; a path under no
known prefix is \`404\` with the list of prefixes.

| service | prefix | docs | upstream variable |
|---|---|---|---|
${servicesTable}`;

export const gatewayService: ServiceDefinition<GatewayConfig> = {
  name: 'gateway',
  port: 3000,
  config: GatewayConfig,
  module: (config) => GatewayModule.forRoot(config),
  // Bodies are streamed to the services, never parsed or buffered here.
  bodyParser: false,
  errorFilter: () => new GatewayErrorFilter(SERVICES_BEHIND_GATEWAY.map((s) => s.prefix)),
  swagger: { title: 'Gateway', description, version: '1.0.0' },
  configure: (app) => app.get(GatewayProxy).install(app),
};
