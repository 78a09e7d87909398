import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { EmailsRepository } from './emails.repository';
import { SmtpTransport } from './smtp.transport';


/**
 * Sends queued emails through SMTP_URL: claims due rows with `claimDue` (FOR UPDATE SKIP LOCKED, a
 * lease), sends them, and marks them SENT, or retries with exponential backoff (30 s doubling, up to
 * SEND_MAX_ATTEMPTS), then FAILED. Every replica runs it; each email goes to one sender. Permanent
 * SMTP refusals (5xx) fail at once. Off when SMTP_URL is unset (nothing is queued then).
 */
@Injectable()
export class SendWorker extends PollingWorker {
  protected readonly logger = new Logger('SendWorker');

  constructor(
    private readonly emails: EmailsRepository,
    private readonly smtp: SmtpTransport,
    private readonly config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  protected override enabled(): boolean {
    return this.smtp.configured;
  }

  protected async tick(): Promise<number> {
    const claimed = await this.emails.claim(this.config.SEND_BATCH, this.config.SEND_LEASE_SECONDS);
    // Mails of a campaign cancelled since they were queued are not handed to SMTP.
    const cancelled = await this.emails.cancelledCampaigns([...new Set(claimed.map((e) => e.campaign_id).filter((id): id is string => id !== null))]);
    // Marketing mail queued before its contact unsubscribed is not sent either.
    const unsubscribed = await this.emails.unsubscribedContacts(claimed.filter((e) => e.kind === 'MARKETING' && e.contact_id).map((e) => e.contact_id!));
    const due: typeof claimed = [];
    for (const e of claimed) {
      if (e.campaign_id && cancelled.has(e.campaign_id)) await this.emails.markFailed(e.id, 'The campaign was cancelled before this mail was handed to SMTP');
      else if (e.kind === 'MARKETING' && e.contact_id && unsubscribed.has(e.contact_id)) await this.emails.markSuppressed(e.id, 'The contact unsubscribed before this mail was sent');
      else due.push(e);
    }
    const sent: Array<{ id: string; messageId: string | null }> = [];
    await Promise.all(
      due.map(async (email) => {
        try {
          sent.push({ id: email.id, messageId: await this.smtp.send(email) });
        } catch (err) {
          const e = err as Error & { responseCode?: number };
          const reason = `${e.responseCode ? `${e.responseCode} ` : ''}${e.message}`.slice(0, 500);
          const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
          if (permanent || email.attempts >= this.config.SEND_MAX_ATTEMPTS) {
            this.logger.warn(`email ${email.id} failed for good: ${reason}`);
            await this.emails.markFailed(email.id, reason);
          } else {
            await this.emails.markRetry(email.id, reason, 30 * 2 ** (email.attempts - 1));
          }
        }
      }),
    );
    // One statement for the round's accepted mails (a crash before it: they are sent again after the lease).
    await this.emails.markSentMany(sent);
    return claimed.length;
  }
}
