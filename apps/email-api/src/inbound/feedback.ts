import { emailIdOfMessageId, parseReturnPath } from '../emails/verp';
import { dsnOutcome, type ParsedReport } from './reports';

/** A sent mail a report may be about. */
export interface ReportedMail {
  emailId: string;
  /** The mail's recipient (lower-cased address). */
  recipient: string;
}

/** One mail event a report asks to record (the shape the mail events service takes). */
export interface FeedbackEvent {
  type: 'bounce' | 'complaint' | 'delivery';
  emailId: string;
  recipient: string;
  bounceType?: 'hard' | 'soft';
  /**
   * `fb:<email id>:<kind>`: a mail bounces (hard or soft), is complained about and is delivered at
   * most once each, whichever way the news arrives (a DSN, an ARF report, the SES webhook) and
   * however often it is sent again.
   */
  idempotencyKey: string;
  source: string;
  /** When it happened; unset: when it was recorded (a report's Arrival-Date is the original mail's, kept in `data`). */
  occurredAt?: Date;
  data: Record<string, unknown>;
}

/** Feedback types of ARF that are no complaint (RFC 6650 `not-spam` says the opposite). */
const NOT_A_COMPLAINT = new Set(['not-spam']);

/** The key one kind of news about one mail is recorded under (see FeedbackEvent.idempotencyKey). */
export function feedbackKey(emailId: string, type: FeedbackEvent['type'], bounceType?: 'hard' | 'soft'): string {
  return `fb:${emailId}:${type === 'bounce' ? `bounce-${bounceType}` : type}`;
}

/**
 * The ids of the mails a report is about, best evidence first: the envelope recipients it was sent
 * to (the VERP return paths), then an ARF report's `Original-Mail-From`, then the `Message-ID` of
 * the original message it quotes.
 */
export function reportedMailIds(report: ParsedReport, envelopeRecipients: string[]): string[] {
  const fromEnvelope = envelopeRecipients.map((r) => parseReturnPath(r)?.emailId).filter((id): id is string => !!id);
  if (fromEnvelope.length) return [...new Set(fromEnvelope)];
  if (report.kind !== 'delivery-status' && report.kind !== 'feedback-report') return [];
  if (report.kind === 'feedback-report' && report.originalMailFrom) {
    const id = parseReturnPath(report.originalMailFrom)?.emailId;
    if (id) return [id];
  }
  const id = emailIdOfMessageId(report.original?.messageId);
  return id ? [id] : [];
}

/**
 * The events a parsed DSN or ARF report gives for the mails it was matched to. A DSN block is the
 * mail's whose recipient it names (Final-Recipient or Original-Recipient); with a single mail and a
 * single block the block is that mail's whatever address it names (forwarders rewrite the final
 * recipient). `delayed` blocks record nothing (the mail is still being tried). Every mail of an ARF
 * report gets a complaint, unless its Feedback-Type is `not-spam`.
 */
export function feedbackEvents(report: ParsedReport, mails: ReportedMail[]): FeedbackEvent[] {
  const events: FeedbackEvent[] = [];
  if (report.kind === 'delivery-status') {
    for (const block of report.recipients) {
      const outcome = dsnOutcome(block);
      if (!outcome || outcome === 'delayed') continue;
      const mail =
        mails.find((m) => m.recipient === block.finalRecipient || m.recipient === block.originalRecipient) ??
        (mails.length === 1 && report.recipients.length === 1 ? mails[0] : undefined);
      if (!mail) continue;
      const data: Record<string, unknown> = {
        action: block.action,
        status: block.status ?? null,
        diagnosticCode: block.diagnosticCode ?? null,
        finalRecipient: block.finalRecipient,
        reportingMta: report.reportingMta ?? null,
        remoteMta: block.remoteMta ?? null,
        arrivalDate: report.arrivalDate ?? null,
      };
      if (outcome === 'delivered') {
        events.push({ type: 'delivery', emailId: mail.emailId, recipient: mail.recipient, idempotencyKey: feedbackKey(mail.emailId, 'delivery'), source: 'smtp-dsn', data });
      } else {
        events.push({
          type: 'bounce',
          bounceType: outcome,
          emailId: mail.emailId,
          recipient: mail.recipient,
          idempotencyKey: feedbackKey(mail.emailId, 'bounce', outcome),
          source: 'smtp-dsn',
          data,
        });
      }
    }
  } else if (report.kind === 'feedback-report' && !NOT_A_COMPLAINT.has(report.feedbackType)) {
    for (const mail of mails) {
      events.push({
        type: 'complaint',
        emailId: mail.emailId,
        recipient: mail.recipient,
        idempotencyKey: feedbackKey(mail.emailId, 'complaint'),
        source: 'smtp-arf',
        data: {
          feedbackType: report.feedbackType,
          userAgent: report.userAgent ?? null,
          sourceIp: report.sourceIp ?? null,
          reportedDomain: report.reportedDomain ?? null,
          originalRcptTo: report.originalRcptTo,
          arrivalDate: report.arrivalDate ?? null,
        },
      });
    }
  }
  // One event per key: a report naming the same mail twice records it once.
  return events.filter((e, i) => events.findIndex((o) => o.idempotencyKey === e.idempotencyKey) === i);
}
