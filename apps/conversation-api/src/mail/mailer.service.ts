import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { ConversationApiConfig } from '../config';
import { OutgoingMailsRepository, type MailStatus } from './outgoing-mails.repository';

export type { MailStatus } from './outgoing-mails.repository';

/** Attempts at a mail before it is `failed`; the delay doubles from a minute. */
const MAX_ATTEMPTS = 5;
const FIRST_RETRY_MS = 60_000;
const LEASE_SECONDS = 120;

/**
 * The service's own mail (password reset) over SMTP_URL. `queue` stores a mail in `outgoing_mails`
 * inside the caller's transaction: `queued` for the mail worker (MailWorker), which sends it and
 * marks it `sent`, or retries refusals (five attempts, from a minute apart, doubling) and then
 * `failed` with the error; without SMTP_URL it is stored `unsent` (and the caller reports it so).
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

  /** Whether mails go out (SMTP_URL set): `queued`, else `unsent`. */
  get mode(): Extract<MailStatus, 'queued' | 'unsent'> {
    return this.transporter ? 'queued' : 'unsent';
  }

  async queue(kind: string, to: string, subject: string, text: string): Promise<MailStatus> {
    if (!this.transporter) this.logger.warn(`${kind} mail to ${to} stored unsent: SMTP_URL is not set`);
    await this.mails.insert({ kind, to, subject, body: text, status: this.mode });
    return this.mode;
  }

  /** Sends up to `limit` due queued mails (the mail worker's tick); how many were claimed. */
  async sendDue(limit = 10): Promise<number> {
    if (!this.transporter) return 0;
    const due = await this.mails.claimDue(limit, LEASE_SECONDS);
    for (const mail of due) {
      try {
        await this.transporter.sendMail({ from: this.config.CONVERSATION_MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.body });
        await this.mails.markSent(mail.id);
      } catch (err) {
        const error = (err as Error).message;
        const delay = mail.attempt < MAX_ATTEMPTS ? FIRST_RETRY_MS * 2 ** (mail.attempt - 1) : null;
        this.logger.warn(`${mail.kind} mail ${mail.id} attempt ${mail.attempt} failed: ${error}${delay === null ? ' (giving up)' : ''}`);
        await this.mails.markAttemptFailed(mail.id, error, delay);
      }
    }
    return due.length;
  }

  onApplicationShutdown(): void {
    this.transporter?.close();
  }
}
