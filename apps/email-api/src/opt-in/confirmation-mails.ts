import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { EmailApiConfig } from '../config';
import { DomainsService } from '../domains/domains.service';
import type { NewEmail } from '../emails/email';
import { TemplatesService } from '../templates/templates.service';
import { DEFAULT_CONFIRMATION, renderConfirmation } from './confirmation-mail';
import { OptInLinks } from './opt-in-links';
import { OptInSettingsService } from './opt-in-settings.service';

export type ConfirmationEmail = Omit<NewEmail, 'status' | 'statusReason'>;

/**
 * The confirmation mail of one contact: the project's template (its sender, subject and body with
 * `confirmUrl`), or the built-in mail from EMAIL_FROM when the template was deleted or its sender's
 * domain is no longer verified (a signup is never left without its mail; a warning is logged).
 */
@Injectable()
export class ConfirmationMails {
  private readonly logger = new Logger('ConfirmationMails');

  constructor(
    private readonly config: EmailApiConfig,
    private readonly settings: OptInSettingsService,
    private readonly templates: TemplatesService,
    private readonly domains: DomainsService,
    private readonly links: OptInLinks,
  ) {}

  async build(projectId: string, contact: { id: string; email: string; data: Record<string, unknown> }): Promise<ConfirmationEmail> {
    const template = await this.template(projectId);
    const confirmUrl = this.links.url(projectId, contact.id);
    const { subject, html } = renderConfirmation(template ?? DEFAULT_CONFIRMATION, contact, confirmUrl);
    return {
      projectId,
      contactId: contact.id,
      // The platform's own kind of mail: no open pixel or tracked links before the person consented,
      // never held back by an `unsubscribe` suppression, and (source SYSTEM) not counted by billing.
      kind: 'SYSTEM',
      source: 'SYSTEM',
      to: contact.email,
      from: template?.from ?? this.config.EMAIL_FROM,
      fromName: null,
      replyTo: null,
      subject,
      html,
      headers: { 'Auto-Submitted': 'auto-generated' },
      attachments: [],
      data: null,
      templateId: template?.id ?? null,
    };
  }

  /** The project's confirmation template when it can still be sent; null: the built-in mail. */
  private async template(projectId: string): Promise<{ id: string; subject: string; body: string; from: string } | null> {
    const { templateId } = await this.settings.get(projectId);
    if (!templateId) return null;
    try {
      const template = await this.templates.get(projectId, templateId);
      await this.domains.assertSendableSender(projectId, template.from);
      return template;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.logger.warn(`project ${projectId}: confirmation template ${templateId} cannot be sent (${err.message}); sending the built-in confirmation mail`);
      return null;
    }
  }
}
