import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { EmailApiConfig } from '../config';
import { DomainsService } from '../domains/domains.service';
import { RETURN_PATH_LABEL } from '../domains/domain';
import type { EmailRow } from './email';
import { MimeBuilder } from './mime-builder';

/** nodemailer over SMTP_URL (pooled); null when SMTP_URL is unset. */
@Injectable()
export class SmtpTransport implements OnApplicationShutdown {
  private readonly transporter: Transporter | null;

  constructor(
    config: EmailApiConfig,
    private readonly domains: DomainsService,
    private readonly mime: MimeBuilder,
  ) {
    this.transporter = config.SMTP_URL
      ? // One options object: createTransport's second argument holds message defaults, not transport options.
        nodemailer.createTransport({
          url: config.SMTP_URL,
          pool: true,
          maxConnections: config.SMTP_POOL_SIZE,
          maxMessages: Infinity,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        })
      : null;
  }

  get configured(): boolean {
    return this.transporter !== null;
  }

  /**
   * Sends one stored email; resolves with the Message-ID, throws when the server refused it. Mail
   * from a verified domain of the project is DKIM-signed with that domain's key; bounces go to the
   * domain's return path `bounce.<domain>`. The message is built and signed off the event loop
   * (MimeBuilder); this only hands the finished bytes to the pooled connection.
   */
  async send(email: EmailRow): Promise<string> {
    if (!this.transporter) throw new Error('SMTP_URL is not configured');
    const dkim = await this.domains.dkimFor(email.project_id, email.from_email);
    const messageId = `<${email.id}@${dkim?.domainName ?? 'email-api'}>`;
    const built = await this.mime.build(
      {
        ...(dkim ? { envelope: { from: `bounces+${email.id}@${RETURN_PATH_LABEL}.${dkim.domainName}`, to: /<([^>]+)>\s*$/.exec(email.to_email)?.[1] ?? email.to_email } } : {}),
        messageId,
        from: email.from_name ? { name: email.from_name, address: email.from_email } : email.from_email,
        to: email.to_email,
        replyTo: email.reply_to ?? undefined,
        subject: email.subject,
        html: email.html,
        headers: email.headers,
        attachments: email.attachments.map((a) => ({
          filename: a.filename,
          content: Buffer.from(a.content, 'base64'),
          contentType: a.contentType,
          cid: a.contentId,
          contentDisposition: a.disposition,
        })),
      },
      dkim,
    );
    await this.transporter.sendMail({ envelope: { from: built.envelope.from || email.from_email, to: built.envelope.to }, raw: built.raw });
    return messageId;
  }

  onApplicationShutdown(): void {
    this.transporter?.close();
  }
}
