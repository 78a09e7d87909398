import { PlainErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { AutostartProxyModule } from './app.module';
import { AutostartProxyConfig } from './config';
import { AutostartRouter } from './routing/autostart-router';

const description = `Starts a stopped service when a request for it arrives and stops it after idle time (spec E).
A front reverse proxy (Kubernetes Ingress, Traefik, nginx) sends each managed hostname here with the header
\`X-Autostart-Target: <hostname>\` (else the \`Host\` header is used), and must not cache these responses.

- Service running and healthy → the request is proxied to its \`upstream\` (any method, streamed bodies,
  WebSocket upgrades, headers kept).
- Stopped → started once, however many requests arrive; **dynamic** services answer **200** with a themed
  waiting page that polls \`/health/{host}\` and reloads when ready; **async** services answer **202** with
  \`Retry-After\` and \`{status: "starting", message, service, estimatedTime, retryAfter, healthCheckUrl}\`.
- A start that fails, times out (\`startTimeout\`) or is reported unhealthy → **502** (page or
  \`{status: "failed", message, service, error}\`), once; the next request starts it again.
- \`X-Autostart-Target\` naming no managed host → **404** \`{error, host}\`; nothing is started.
- An upgrade (WebSocket) to a service not ready → **503** with \`Retry-After\` and the starting body.

Choices where the spec says "not shown": errors of the proxy's own endpoints are \`{error: message}\`
(404 unknown host or service, 400 bad query); the failed-start answer is 502; \`/health/{host}\` answers 503
\`{status: "stopped"}\` for a stopped service and 502 \`{status: "failed"}\` after a failed start. No authentication
(internal network, behind the reverse proxy). Services come from the YAML file named by \`AUTOSTART_CONFIG\`
and, with \`AUTOSTART_DISCOVERY\`, from the workloads' \`autostart.*\` labels or annotations (the file wins on conflict).

- **blocking** services: the request waits (up to \`blockingTimeout\`) and is then proxied; **504**
  \`{status: "timeout", …}\` when the start takes longer, 502 at once when it fails.
- **Groups**: a request to a member of a \`group\` starts all of them and passes once all are ready.

**Sablier's API** (tag *sablier*), for Sablier's Traefik, Caddy and nginx plugins: \`GET /api/strategies/dynamic\`,
\`GET /api/strategies/blocking\`, \`GET /api/themes\`, \`GET /health\`, as Sablier's published description
(API 1.0) specifies; \`names\` are managed service names. Choices where it says little: without
\`session_duration\` a call counts as a request under the service's own idleTimeout; a session newer than
the last routed request keeps the instances until its end; a failed start answers the blocking strategy
502 at once (not a wait until the timeout); errors are RFC 7807 problems; \`GET /api/events\` is not served.`;

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const autostartProxyService: ServiceDefinition<AutostartProxyConfig> = {
  name: 'autostart-proxy',
  port: 3007,
  schema: 'autostart',
  config: AutostartProxyConfig,
  module: (config) => AutostartProxyModule.forRoot(config),
  errorFilter: () => new PlainErrorFilter(),
  swagger: { title: 'autostart-proxy', version: '1.0.0', description },
  configure: (app) => app.get(AutostartRouter).install(app),
};
