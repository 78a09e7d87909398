import { Injectable, Logger } from '@nestjs/common';
import { GroupCommit, PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { MailEventsService } from '../mail-events/mail-events.service';
import { suppressedReasonText } from '../suppressions/suppression';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { recipientAddress } from './recipients';
import type { EmailRow } from './email';
import { EmailsRepository } from './emails.repository';
import { providerMessageId } from './provider-message-id';
import { allocate, refill } from './throttle';
import { DeliveryError } from './smtp-sessions';
import { SmtpTransport } from './smtp.transport';

/** A mail handed to SMTP, to be recorded SENT; `endData` ends its data as the record's COMMIT is written. */
interface HandedOverMail {
  id: string;
  messageId: string;
  endData: () => void;
}

/**
 * Sends queued emails through SMTP_URL: claims due rows under each project's send throttle (FOR
 * UPDATE SKIP LOCKED, a lease, a token bucket per project, transactional first: throttle.ts), sends them, and marks them SENT, or retries with exponential backoff (30 s doubling, up to
 * SEND_MAX_ATTEMPTS), then FAILED. Every replica runs it; each email goes to one sender. Permanent
 * SMTP refusals (5xx) fail at once. Off when SMTP_URL is unset (nothing is queued then).
 *
 * A claimed round is sent over SEND_CONCURRENCY lanes, one mail in flight per lane. A mail is
 * recorded SENT in the same step that ends its data on the SMTP connection: the record's statement
 * runs, then its COMMIT and the lanes' end-of-data lines are written together (Database.commitWith,
 * SmtpSessions); the lanes' records share statements (group commit). A server that then refuses the
 * mail turns the record back (retry or FAILED), as does a connection that failed while the record
 * committed (its data is not ended then). A process killed outright leaves its claimed mails
 * either QUEUED, their data never ended — the server dropped them, and they are sent again after the
 * lease — or SENT, their data ended. Nobody gets a second copy and no mail is lost, except in the
 * moment between the COMMIT's write and the end-of-data writes (the round recorded but not sent;
 * microseconds, unless the process is descheduled right there),
 * or when the COMMIT fails after it was written and the database cannot take the next statement
 * either (the mails went out but stay QUEUED, and are sent again after the lease).
 */
@Injectable()
export class SendWorker extends PollingWorker {
  protected readonly logger = new Logger('SendWorker');
  private readonly handedOver: GroupCommit<HandedOverMail>;
  private readonly providerIds: GroupCommit<{ id: string; providerMessageId: string }>;

  constructor(
    private readonly emails: EmailsRepository,
    private readonly smtp: SmtpTransport,
    private readonly config: EmailApiConfig,
    private readonly suppressions: SuppressionsService,
    private readonly mailEvents: MailEventsService,
  ) {
    super(config.WORKER_POLL_MS);
    // The round's end-of-data lines go out in the step that writes its COMMIT.
    this.handedOver = new GroupCommit((round) => this.emails.markSentMany(round, () => round.forEach((r) => r.endData())));
    this.providerIds = new GroupCommit((rows) => this.emails.setProviderMessageIds(rows));
  }

  protected override enabled(): boolean {
    return this.smtp.configured;
  }

  protected async tick(): Promise<number> {
    // Due mail under each project's throttle, transactional before workflow before campaign (throttle.ts).
    const claimed = await this.emails.claimThrottled(this.config.SEND_BATCH, this.config.SEND_LEASE_SECONDS, this.config.EMAIL_SEND_RATE, allocate, refill);
    // Mails of a campaign cancelled since they were queued are not handed to SMTP.
    const cancelled = await this.emails.cancelledCampaigns([...new Set(claimed.map((e) => e.campaign_id).filter((id): id is string => id !== null))]);
    // Marketing mail queued before its contact unsubscribed is not sent either.
    const unsubscribed = await this.emails.unsubscribedContacts(claimed.filter((e) => e.kind === 'MARKETING' && e.contact_id).map((e) => e.contact_id!));
    // Marketing mail waits for its throttle slot: an address suppressed meanwhile gets none.
    const suppressed = await this.suppressions.blockingMarketing(claimed.filter((e) => e.kind === 'MARKETING' && e.project_id).map((e) => ({ projectId: e.project_id!, email: recipientAddress(e.to_email) })));
    const due: typeof claimed = [];
    for (const e of claimed) {
      const suppression = e.kind === 'MARKETING' && e.project_id ? suppressed.get(`${e.project_id} ${recipientAddress(e.to_email)}`) : undefined;
      if (e.campaign_id && cancelled.has(e.campaign_id)) await this.emails.markCancelled(e.id, 'The campaign was cancelled before this mail was handed to SMTP');
      else if (suppression) await this.emails.markSuppressed(e.id, suppressedReasonText(suppression));
      else if (e.kind === 'MARKETING' && e.contact_id && unsubscribed.has(e.contact_id)) await this.emails.markSuppressed(e.id, 'The contact unsubscribed before this mail was sent');
      else due.push(e);
    }
    let next = 0;
    let failure: unknown;
    const lane = async (): Promise<void> => {
      while (failure === undefined && next < due.length) {
        const email = due[next++];
        let reply: string;
        try {
          reply = await this.smtp.send(email, (messageId, endData) => this.handedOver.add({ id: email.id, messageId, endData }));
        } catch (err) {
          await this.notSent(email, err as Error);
          continue;
        }
        // The server's own id of the mail (provider webhooks name mails by it); the mail is sent whatever becomes of this record.
        const providerId = providerMessageId(reply);
        if (providerId) await this.providerIds.add({ id: email.id, providerMessageId: providerId }).catch((err: Error) => this.logger.warn(`email ${email.id}: provider message id not stored: ${err.message}`));
      }
    };
    // A lane that cannot record stops all of them: what they claimed comes back after the lease.
    const lanes = Array.from({ length: Math.min(this.config.SEND_CONCURRENCY, due.length) }, () => lane().catch((err: unknown) => (failure ??= err)));
    await Promise.all(lanes);
    if (failure !== undefined) throw failure;
    return claimed.length;
  }

  private async notSent(email: EmailRow, err: Error): Promise<void> {
    const delivery = err instanceof DeliveryError ? err : null;
    const reason = `${delivery?.responseCode ? `${delivery.responseCode} ` : ''}${err.message}`.slice(0, 500);
    if (delivery?.uncertain) {
      // The data was ended and the answer did not come back (or the record failed after it): the
      // server may have the mail, so it is not sent again.
      this.logger.warn(`email ${email.id}: handed to SMTP, then ${reason}; not sent again`);
      await this.emails.markAnswerLost(email.id, `Handed to SMTP; the server's answer was lost (${reason})`);
      return;
    }
    const permanent = typeof delivery?.responseCode === 'number' && delivery.responseCode >= 500;
    if (permanent || email.attempts >= this.config.SEND_MAX_ATTEMPTS) {
      this.logger.warn(`email ${email.id} failed for good: ${reason}`);
      await this.emails.markFailed(email.id, reason, permanent);
      // A permanent refusal is a hard bounce: recorded once, and the address suppressed.
      if (permanent) await this.mailEvents.record({ type: 'bounce', bounceType: 'hard', emailId: email.id, idempotencyKey: `smtp:${email.id}`, source: 'smtp', data: { diagnostic: reason } });
    } else {
      await this.emails.markRetry(email.id, reason, 30 * 2 ** (email.attempts - 1));
    }
  }
}
