import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { SessionService } from '../access/session.service';
import { EmailApiConfig } from '../config';
import { OptInTokens, type OptInTokenCheck } from './opt-in-tokens';

/**
 * Confirmation links of double opt-in: `${PUBLIC_BASE_URL}/confirm/<token>` (OptInTokens), keyed with
 * a key derived from the service secret (JWT_SECRET) for this purpose only.
 */
@Injectable()
export class OptInLinks {
  private readonly tokens: OptInTokens;

  constructor(
    private readonly config: EmailApiConfig,
    sessions: SessionService,
  ) {
    this.tokens = new OptInTokens(createHmac('sha256', sessions.secret).update('email-api opt-in links').digest());
  }

  url(projectId: string, contactId: string, now?: Date): string {
    return `${this.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/confirm/${this.tokens.token(projectId, contactId, now)}`;
  }

  contactOf(token: string): string | null {
    return this.tokens.contactOf(token);
  }

  verify(token: string, projectId: string): OptInTokenCheck {
    return this.tokens.verify(token, projectId);
  }
}
