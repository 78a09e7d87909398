import type { AutomationConfig } from '../config';

/** Values of the built-in sandbox account (development only; never with NODE_ENV=production). */
export const SANDBOX = {
  igUserId: '17841400000000000',
  username: 'sandbox_business',
  accessToken: 'sandbox-token',
  appSecret: 'sandbox-app-secret',
  verifyToken: 'sandbox-verify',
  version: 'v23.0',
} as const;

export const DEFAULT_GRAPH_URL = 'https://graph.instagram.com/v23.0';

/**
 * The sandbox replaces the platform when nothing points at a real one: NODE_ENV is not production,
 * IG_ACCESS_TOKEN is unset and IG_GRAPH_URL is the default (unset).
 */
export function isSandbox(config: AutomationConfig): boolean {
  return config.NODE_ENV !== 'production' && !config.IG_ACCESS_TOKEN && config.IG_GRAPH_URL === DEFAULT_GRAPH_URL;
}

/** The sandbox Graph API served by the app itself. */
export function sandboxGraphUrl(config: AutomationConfig): string {
  return `http://127.0.0.1:${config.PORT}/sandbox/graph/${SANDBOX.version}`;
}
