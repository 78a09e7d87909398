import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { EmailApiConfig } from '../config';
import { DomainsService } from '../domains/domains.service';
import type { EmailRow } from './email';
import { MimeBuilder } from './mime-builder';
import { SmtpSessions } from './smtp-sessions';
import { returnPathOf } from './verp';

/** Sends stored emails over SMTP_URL through pooled connections (SmtpSessions); off when SMTP_URL is unset. */
@Injectable()
export class SmtpTransport implements OnApplicationShutdown {
  private readonly sessions: SmtpSessions | null;

  constructor(
    config: EmailApiConfig,
    private readonly domains: DomainsService,
    private readonly mime: MimeBuilder,
  ) {
    this.sessions = config.SMTP_URL
      ? new SmtpSessions({ url: config.SMTP_URL, size: config.SMTP_POOL_SIZE, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 })
      : null;
  }

  get configured(): boolean {
    return this.sessions !== null;
  }

  /**
   * Sends one stored email; resolves with the server's acceptance reply once it accepted it, throws a DeliveryError
   * otherwise. `handOver(messageId, endData)` records the mail as handed over and ends
   * its data together with the record's commit (SmtpSessions); it runs once the message is on the
   * socket. Mail from a verified domain of the project is DKIM-signed
   * with that domain's key; bounces go to the domain's return path `bounce.<domain>`. The message is
   * built and signed off the event loop (MimeBuilder).
   */
  async send(email: EmailRow, handOver: (messageId: string, endData: () => void) => Promise<void>): Promise<string> {
    if (!this.sessions) throw new Error('SMTP_URL is not configured');
    const dkim = await this.domains.dkimFor(email.project_id, email.from_email);
    const messageId = `<${email.id}@${dkim?.domainName ?? 'email-api'}>`;
    const built = await this.mime.build(
      {
        ...(dkim ? { envelope: { from: returnPathOf(email.id, dkim.domainName), to: /<([^>]+)>\s*$/.exec(email.to_email)?.[1] ?? email.to_email } } : {}),
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
    // The server's acceptance reply (it may name the server's own id of the mail: providerMessageId).
    return this.sessions.deliver({ from: built.envelope.from || email.from_email, to: built.envelope.to }, built.raw, (endData) => handOver(messageId, endData));
  }

  onApplicationShutdown(): void {
    this.sessions?.close();
  }
}
