import { BaseConfig } from '@platform/platform';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName } from '@platform/registry';
import { defaultUpstream } from './routes/route-table';

const UPSTREAM_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * The gateway's variables: where each service lives (default: loopback on its standard port) and how
 * long an upstream may stay silent. Every upstream variable is `GATEWAY_UPSTREAM_<APP_NAME_UPPER_SNAKE>`,
 * one per service of the registry (declared below the class).
 */
export class GatewayConfig extends BaseConfig {
  [upstream: `GATEWAY_UPSTREAM_${string}`]: string | undefined;

  /**
   * How long an upstream may send nothing (no response headers, no body bytes) before the gateway
   * gives up: 502 when nothing was answered yet. Generous by default: synchronous transcriptions take time.
   */
  @IsInt() @Min(100) @Max(3_600_000)
  GATEWAY_TIMEOUT_MS: number = 300_000;

  /** How long opening a connection to an upstream may take before it counts as down (502). */
  @IsInt() @Min(50) @Max(120_000)
  GATEWAY_CONNECT_TIMEOUT_MS: number = 5_000;
}

// One optional upstream variable per service behind the gateway (the registry, services.json),
// validated like a declared field: loadConfig reads the variables that carry class-validator metadata.
for (const service of SERVICES_BEHIND_GATEWAY) {
  const variable = upstreamEnvName(service.name);
  IsOptional()(GatewayConfig.prototype, variable);
  IsUrl(UPSTREAM_URL, { message: `${variable} must be an http(s) origin such as ${defaultUpstream(service)}` })(GatewayConfig.prototype, variable);
}

/** The upstream URL of every service named in the config, keyed by service name. */
export function upstreamsOf(config: GatewayConfig): Record<string, string | undefined> {
  return Object.fromEntries(SERVICES_BEHIND_GATEWAY.map((service) => [service.name, config[upstreamEnvName(service.name)]]));
}
