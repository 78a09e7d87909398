import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import type { EmailRow } from './email';
import { EmailsRepository } from './emails.repository';
import { GroupCommit } from './group-commit';
import { SmtpTransport } from './smtp.transport';


/**
 * Sends queued emails through SMTP_URL: claims due rows with `claimDue` (FOR UPDATE SKIP LOCKED, a
 * lease), sends them, and marks them SENT, or retries with exponential backoff (30 s doubling, up to
 * SEND_MAX_ATTEMPTS), then FAILED. Every replica runs it; each email goes to one sender. Permanent
 * SMTP refusals (5xx) fail at once. Off when SMTP_URL is unset (nothing is queued then).
 *
 * A claimed round is sent over SEND_CONCURRENCY lanes, one mail in flight per lane (built and signed
 * by MimeBuilder's threads, handed to the pooled SMTP connections, recorded), and a lane takes its
 * next mail only once the accepted one is recorded SENT (group commit: the lanes' records share
 * statements). A process killed outright therefore leaves at most SEND_CONCURRENCY mails whose
 * acceptance it may not have recorded — the only ones the next sender can hand to SMTP a second time
 * (same Message-ID). Claimed mails not yet sent come back when their lease ends.
 */
@Injectable()
export class SendWorker extends PollingWorker {
  protected readonly logger = new Logger('SendWorker');
  private readonly sent: GroupCommit<{ id: string; messageId: string | null }>;

  constructor(
    private readonly emails: EmailsRepository,
    private readonly smtp: SmtpTransport,
    private readonly config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
    this.sent = new GroupCommit((round) => this.emails.markSentMany(round));
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
    let next = 0;
    let failure: unknown;
    const lane = async (): Promise<void> => {
      while (failure === undefined && next < due.length) {
        const email = due[next++];
        let messageId: string | null;
        try {
          messageId = await this.smtp.send(email);
        } catch (err) {
          await this.refused(email, err as Error & { responseCode?: number });
          continue;
        }
        await this.sent.add({ id: email.id, messageId });
      }
    };
    // A lane that cannot record stops all of them: what they claimed comes back after the lease.
    const lanes = Array.from({ length: Math.min(this.config.SEND_CONCURRENCY, due.length) }, () => lane().catch((err: unknown) => (failure ??= err)));
    await Promise.all(lanes);
    if (failure !== undefined) throw failure;
    return claimed.length;
  }

  private async refused(email: EmailRow, err: Error & { responseCode?: number }): Promise<void> {
    const reason = `${err.responseCode ? `${err.responseCode} ` : ''}${err.message}`.slice(0, 500);
    const permanent = typeof err.responseCode === 'number' && err.responseCode >= 500;
    if (permanent || email.attempts >= this.config.SEND_MAX_ATTEMPTS) {
      this.logger.warn(`email ${email.id} failed for good: ${reason}`);
      await this.emails.markFailed(email.id, reason);
    } else {
      await this.emails.markRetry(email.id, reason, 30 * 2 ** (email.attempts - 1));
    }
  }
}
