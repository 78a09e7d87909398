import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SessionService } from '../access/session.service';
import { EmailApiConfig } from '../config';

/**
 * Signed unsubscribe links: `${PUBLIC_BASE_URL}/unsubscribe/<contactId>.<hmac>`. The HMAC (keyed
 * with the service secret) makes the contact id unguessable and tamper-proof without storing tokens.
 */
@Injectable()
export class UnsubscribeLinks {
  private readonly key: Buffer;

  constructor(
    private readonly config: EmailApiConfig,
    sessions: SessionService,
  ) {
    this.key = createHmac('sha256', sessions.secret).update('email-api unsubscribe links').digest();
  }

  token(contactId: string): string {
    return `${contactId}.${this.sign(contactId)}`;
  }

  url(contactId: string): string {
    return `${this.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/unsubscribe/${this.token(contactId)}`;
  }

  /** The contact id of a valid token, else null. */
  verify(token: string): string | null {
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return null;
    const contactId = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.sign(contactId));
    return given.length === expected.length && timingSafeEqual(given, expected) ? contactId : null;
  }

  private sign(contactId: string): string {
    return createHmac('sha256', this.key).update(contactId).digest('base64url').slice(0, 32);
  }
}
