import { BaseConfig } from '@platform/platform';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';

const UPSTREAM_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const upstreamMessage = (name: string, port: number) => ({
  message: `GATEWAY_UPSTREAM_${name} must be an http(s) origin such as http://127.0.0.1:${port}`,
});

/**
 * The gateway's variables: where each service lives (default: loopback on its standard port) and how
 * long an upstream may stay silent. Every upstream variable is `GATEWAY_UPSTREAM_<APP_NAME_UPPER_SNAKE>`.
 */
export class GatewayConfig extends BaseConfig {
  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('AUTOMATION_API', 3001))
  GATEWAY_UPSTREAM_AUTOMATION_API?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('EMAIL_API', 3002))
  GATEWAY_UPSTREAM_EMAIL_API?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('KNOWLEDGE_API', 3003))
  GATEWAY_UPSTREAM_KNOWLEDGE_API?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('AUTH_API', 3004))
  GATEWAY_UPSTREAM_AUTH_API?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('CONVERSATION_API', 3005))
  GATEWAY_UPSTREAM_CONVERSATION_API?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('TRANSCRIBE_API', 3006))
  GATEWAY_UPSTREAM_TRANSCRIBE_API?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('AUTOSTART_PROXY', 3007))
  GATEWAY_UPSTREAM_AUTOSTART_PROXY?: string;

  @IsOptional() @IsUrl(UPSTREAM_URL, upstreamMessage('LOGISTICS_HOOKS', 3008))
  GATEWAY_UPSTREAM_LOGISTICS_HOOKS?: string;

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

/** The upstream URL of every service named in the config, keyed by service name. */
export function upstreamsOf(config: GatewayConfig): Record<string, string | undefined> {
  return {
    'automation-api': config.GATEWAY_UPSTREAM_AUTOMATION_API,
    'email-api': config.GATEWAY_UPSTREAM_EMAIL_API,
    'knowledge-api': config.GATEWAY_UPSTREAM_KNOWLEDGE_API,
    'auth-api': config.GATEWAY_UPSTREAM_AUTH_API,
    'conversation-api': config.GATEWAY_UPSTREAM_CONVERSATION_API,
    'transcribe-api': config.GATEWAY_UPSTREAM_TRANSCRIBE_API,
    'autostart-proxy': config.GATEWAY_UPSTREAM_AUTOSTART_PROXY,
    'logistics-hooks': config.GATEWAY_UPSTREAM_LOGISTICS_HOOKS,
  };
}
