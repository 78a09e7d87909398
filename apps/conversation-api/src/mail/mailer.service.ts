import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { ConversationApiConfig } from '../config';
import { OutgoingMailsRepository, type MailStatus } from './outgoing-mails.repository';

export type { MailStatus } from './outgoing-mails.repository';

/**
 * The service's own mail (password reset) over SMTP_URL. Every mail is stored in `outgoing_mails`
 * with its outcome: `sent`, `failed` (the server refused it; the error is kept) or `unsent` (no
 * SMTP_URL: stored only, and the caller reports it unsent).
 */
@Injectable()
export class MailerService implements OnApplicationShutdown {
  private readonly logger = new Logger(MailerService.name);
  private readonly transporter: Transporter | null;

  constructor(
    private readonly config: ConversationApiConfig,
    private readonly mails: OutgoingMailsRepository,
  ) {
    this.transporter = config.SMTP_URL
      ? nodemailer.createTransport({ url: config.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 })
      : null;
  }

  async send(kind: string, to: string, subject: string, text: string): Promise<MailStatus> {
    let status: MailStatus = 'unsent';
    let error: string | null = null;
    if (this.transporter) {
      try {
        await this.transporter.sendMail({ from: this.config.CONVERSATION_MAIL_FROM, to, subject, text });
        status = 'sent';
      } catch (err) {
        status = 'failed';
        error = (err as Error).message;
        this.logger.warn(`${kind} mail to ${to} failed: ${error}`);
      }
    } else {
      this.logger.warn(`${kind} mail to ${to} stored unsent: SMTP_URL is not set`);
    }
    await this.mails.insert({ kind, to, subject, body: text, status, error });
    return status;
  }

  onApplicationShutdown(): void {
    this.transporter?.close();
  }
}
