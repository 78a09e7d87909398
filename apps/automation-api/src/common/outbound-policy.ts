import type { AutomationConfig } from '../config';

/**
 * Who the service may call on a user's behalf, per purpose: each purpose has its own permission
 * variable, so opening one (a test's loopback webhook receiver) never opens another (video downloads).
 */
export type OutboundPurpose = 'customer_webhook' | 'video_download';

export interface OutboundPermission {
  /** Plain http refused. */
  httpsOnly: boolean;
  /** Private, loopback and link-local addresses allowed (checked at connection time by safeFetch). */
  allowPrivate: boolean;
}

const VARIABLE: Record<OutboundPurpose, 'AUTOMATION_WEBHOOK_ALLOW_PRIVATE' | 'AUTOMATION_VIDEO_URL_ALLOW_PRIVATE'> = {
  customer_webhook: 'AUTOMATION_WEBHOOK_ALLOW_PRIVATE',
  video_download: 'AUTOMATION_VIDEO_URL_ALLOW_PRIVATE',
};

/** The permission of one purpose; never open in production, whatever the variable says. */
export function outboundPermission(config: Pick<AutomationConfig, 'NODE_ENV' | 'AUTOMATION_WEBHOOK_ALLOW_PRIVATE' | 'AUTOMATION_VIDEO_URL_ALLOW_PRIVATE'>, purpose: OutboundPurpose): OutboundPermission {
  const open = config[VARIABLE[purpose]] === true && config.NODE_ENV !== 'production';
  return { httpsOnly: !open, allowPrivate: open };
}
