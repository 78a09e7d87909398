import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { SessionService } from '../access/session.service';
import { EmailApiConfig } from '../config';
import { addTracking, TrackingTokens } from './tracking-tokens';

/**
 * Open and click tracking of outgoing mail: `${PUBLIC_BASE_URL}/t/o/<token>` (the pixel) and
 * `${PUBLIC_BASE_URL}/t/c/<token>` (a link), tokens signed with a key derived from the service
 * secret (as the unsubscribe links). Unsubscribe links of this service stay as they are.
 */
@Injectable()
export class TrackingLinks {
  readonly tokens: TrackingTokens;
  private readonly base: string;

  constructor(config: EmailApiConfig, sessions: SessionService) {
    this.tokens = new TrackingTokens(createHmac('sha256', sessions.secret).update('email-api tracking').digest());
    this.base = config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  }

  /** The mail's HTML with tracked links and the pixel, and its links (stored with the mail). */
  apply(emailId: string, html: string): { html: string; links: string[] } {
    return addTracking(html, {
      link: (i) => `${this.base}/t/c/${this.tokens.click(emailId, i)}`,
      pixel: `${this.base}/t/o/${this.tokens.open(emailId)}`,
      keep: (url) => url.startsWith(`${this.base}/unsubscribe/`) || url.startsWith(`${this.base}/t/`),
    });
  }
}
