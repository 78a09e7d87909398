import { outboundPermission, type OutboundPurpose } from './outbound-policy';

describe('outboundPermission', () => {
  const cases: Array<[string, { NODE_ENV: string; AUTOMATION_WEBHOOK_ALLOW_PRIVATE: boolean; AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: boolean }, OutboundPurpose, boolean]> = [
    ['closed by default: webhooks', { NODE_ENV: 'development', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: false, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: false }, 'customer_webhook', false],
    ['closed by default: videos', { NODE_ENV: 'development', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: false, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: false }, 'video_download', false],
    ['the webhook variable opens webhooks', { NODE_ENV: 'test', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: true, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: false }, 'customer_webhook', true],
    ['the webhook variable does not open video downloads', { NODE_ENV: 'test', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: true, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: false }, 'video_download', false],
    ['the video variable opens video downloads', { NODE_ENV: 'test', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: false, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: true }, 'video_download', true],
    ['the video variable does not open webhooks', { NODE_ENV: 'test', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: false, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: true }, 'customer_webhook', false],
    ['never in production: webhooks', { NODE_ENV: 'production', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: true, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: true }, 'customer_webhook', false],
    ['never in production: videos', { NODE_ENV: 'production', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: true, AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: true }, 'video_download', false],
  ];
  it.each(cases)('%s', (_name, config, purpose, open) => {
    expect(outboundPermission(config as never, purpose)).toEqual({ httpsOnly: !open, allowPrivate: open });
  });
});
