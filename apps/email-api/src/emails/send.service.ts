import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError, type FieldError } from '@platform/errors';
import { EmailApiConfig } from '../config';
import { dataPatch } from '../contacts/contact';
import { assertDataKeys, ContactsService } from '../contacts/contacts.service';
import type { StoredAttachment } from './email';
import type { SendEmailDto } from './dto/send.dto';
import { MailQueue } from './mail-queue.service';
import { parseHeaders, parseRecipients, parseSender } from './recipients';
import { renderTemplate } from './render';
import { UnsubscribeLinks } from './unsubscribe-links';
import { TemplatesService } from '../templates/templates.service';
import { DomainsService } from '../domains/domains.service';
import { suppressedReasonText } from '../suppressions/suppression';
import { SuppressionsService } from '../suppressions/suppressions.service';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export interface SendResult {
  emails: Array<{ contact: { id: string; email: string }; email: string; status: string; suppression?: { reason: string; source: string; since: string } }>;
  timestamp: string;
  /** `queued`: the send worker delivers through SMTP_URL; `stored`: SMTP_URL is unset, nothing was sent. */
  delivery: 'queued' | 'stored';
  note?: string;
}

/** POST /v1/send: one email per recipient, each to its (created or updated) contact. */
@Injectable()
export class SendService {
  constructor(
    private readonly transactions: Transactions,
    private readonly config: EmailApiConfig,
    private readonly contacts: ContactsService,
    private readonly queue: MailQueue,
    private readonly links: UnsubscribeLinks,
    private readonly templates: TemplatesService,
    private readonly domains: DomainsService,
    private readonly suppressions: SuppressionsService,
  ) {}

  /** Checks everything that class-validator cannot; throws 422 with field errors. */
  validate(dto: SendEmailDto): void {
    const errors: FieldError[] = [];
    parseRecipients(dto.to, errors);
    parseSender(dto.from, errors);
    parseHeaders(dto.headers, errors);
    const bytes = (dto.attachments ?? []).reduce((n, a) => n + Buffer.byteLength(a.content, 'base64'), 0);
    if (bytes > MAX_ATTACHMENT_BYTES) errors.push({ field: 'attachments', message: 'attachments exceed 10 MB in total', code: 'too_big' });
    if (dto.bypassSuppression && dto.type === 'marketing') errors.push({ field: 'bypassSuppression', message: 'bypassSuppression is for transactional email only', code: 'not_allowed' });
    if (errors.length) throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors, suggestion: 'Fix the fields listed in error.errors and retry.' });
    assertDataKeys(dto.data);
  }

  /** Contacts, their subscription events and the emails in one transaction (or the open one: Idempotency-Key). */
  send(projectId: string, dto: SendEmailDto, correlationId?: string): Promise<SendResult> {
    return this.transactions.transaction(() => this.queueAll(projectId, dto, correlationId));
  }

  private async queueAll(projectId: string, dto: SendEmailDto, correlationId: string | undefined): Promise<SendResult> {
    const ignored: FieldError[] = [];
    const template = dto.template ? await this.templates.get(projectId, dto.template) : null;
    const subject = dto.subject ?? template!.subject;
    const body = dto.body ?? template!.body;
    const recipients = parseRecipients(dto.to, ignored);
    const sender = parseSender(dto.from, ignored) ?? (template ? { email: template.from } : null);
    // An explicit sender (or the template's) must be on a verified domain of the project; without
    // one the mail goes from the operator's EMAIL_FROM.
    if (sender) await this.domains.assertSendableSender(projectId, sender.email);
    const headers = parseHeaders(dto.headers, ignored);
    const marketing = dto.type === 'marketing';
    const attachments: StoredAttachment[] = (dto.attachments ?? []).map((a) => ({
      filename: a.filename,
      content: a.content,
      ...(a.contentType ? { contentType: a.contentType } : {}),
      ...(a.contentId ? { contentId: a.contentId } : {}),
      ...(a.disposition ? { disposition: a.disposition } : {}),
    }));
    const out: SendResult['emails'] = [];
    // Suppressed addresses get a SUPPRESSED record and never reach SMTP (see suppressionApplies).
    const suppressed = await this.suppressions.blocking(projectId, recipients.map((r) => r.email), marketing ? 'MARKETING' : 'TRANSACTIONAL', dto.bypassSuppression ?? false);
    for (const to of recipients) {
      const suppression = suppressed.get(to.email.toLowerCase());
      const { contact } = await this.contacts.record(projectId, to.email, { subscribed: dto.subscribed, defaultSubscribed: false, patch: dataPatch(dto.data) }, correlationId);
      const unsubscribeUrl = this.links.url(contact.id);
      const vars = { ...contact.data, ...(dto.data ?? {}), data: { ...contact.data, ...(dto.data ?? {}) }, email: contact.email, id: contact.id, subscribed: contact.subscribed, name: to.name ?? contact.data['name'], unsubscribeUrl, manageUrl: unsubscribeUrl };
      const mailHeaders = { ...headers };
      if (marketing) {
        mailHeaders['List-Unsubscribe'] = `<${unsubscribeUrl}>`;
        mailHeaders['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
      }
      const email = await this.queue.enqueue(
        {
          projectId,
          contactId: contact.id,
          kind: marketing ? 'MARKETING' : 'TRANSACTIONAL',
          source: 'API',
          to: to.name ? `"${to.name.replace(/["\\]/g, '')}" <${to.email}>` : to.email,
          from: sender?.email ?? this.config.EMAIL_FROM,
          fromName: sender?.name ?? dto.name ?? null,
          replyTo: dto.reply ?? null,
          subject: renderTemplate(subject, vars, false),
          html: renderTemplate(body, vars, true),
          headers: mailHeaders,
          attachments,
          data: dto.data ?? null,
          templateId: template?.id ?? null,
        },
        suppression ? suppressedReasonText(suppression) : marketing && !contact.subscribed ? 'The contact is unsubscribed: marketing email is not sent to it' : undefined,
      );
      out.push({
        contact: { id: contact.id, email: contact.email },
        email: email.id,
        status: email.status,
        ...(suppression ? { suppression: { reason: suppression.reason, source: suppression.source, since: suppression.createdAt.toISOString() } } : {}),
      });
    }
    const stored = !this.queue.smtpConfigured;
    return {
      emails: out,
      timestamp: new Date().toISOString(),
      delivery: stored ? 'stored' : 'queued',
      ...(stored ? { note: 'SMTP_URL is not configured: the emails were stored in the activity feed and not sent' } : {}),
    };
  }

  /** Wake the local sender once the transaction has committed. */
  committed(): void {
    this.queue.flush();
  }
}
