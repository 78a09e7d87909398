import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { SentMails } from '../emails/sent-mails.service';
import { MailEventsService } from '../mail-events/mail-events.service';
import { feedbackEvents, reportedMailIds, type FeedbackEvent } from './feedback';
import { parseReport, type ParsedReport } from './reports';

export interface FeedbackOutcome {
  /** What the message was (a DSN, an ARF report, something else). */
  kind: Exclude<ParsedReport['kind'], 'malformed'>;
  /** Events the report gave. */
  events: number;
  /** Of those, the ones recorded now (the others had landed before). */
  recorded: number;
}

/**
 * A report received over SMTP at a return path: read it (DSN or ARF), find the mails it is about
 * (the return path's id, else Original-Mail-From, else the quoted Message-ID), and record each
 * bounce, complaint or delivery through the mail events service, all in one transaction (which also
 * suppresses hard bounces and complainers and escalates soft bounces). Each event has a key of its
 * own (`fb:<email id>:<kind>`), so a report delivered again records nothing new. A malformed report
 * throws (`malformed`), for the receiver to refuse it; anything else that is no DSN or ARF report
 * (an auto-reply) records nothing.
 */
@Injectable()
export class RecordFeedback {
  private readonly logger = new Logger('RecordFeedback');

  constructor(
    private readonly transactions: Transactions,
    private readonly sentMails: SentMails,
    private readonly mailEvents: MailEventsService,
  ) {}

  /** Reads a received report; `envelopeRecipients` are the RCPT TO addresses it came to. */
  async fromMessage(raw: string, envelopeRecipients: string[]): Promise<FeedbackOutcome | { kind: 'malformed'; reason: string }> {
    const report = parseReport(raw);
    if (report.kind === 'malformed') return report;
    if (report.kind !== 'delivery-status' && report.kind !== 'feedback-report') return { kind: report.kind, events: 0, recorded: 0 };
    const mails = (await this.sentMails.find(reportedMailIds(report, envelopeRecipients))).filter((m) => m.projectId !== null);
    const events = feedbackEvents(report, mails.map((m) => ({ emailId: m.id, recipient: m.recipient })));
    if (!events.length) this.logger.log(`a ${report.kind} report matched no mail of a project (envelope ${envelopeRecipients.join(', ')})`);
    return { kind: report.kind, events: events.length, recorded: await this.record(events) };
  }

  /** Records the events in one transaction; answers how many were new. */
  async record(events: FeedbackEvent[]): Promise<number> {
    if (!events.length) return 0;
    return this.transactions.transaction(async () => {
      let recorded = 0;
      for (const e of events) {
        const result = await this.mailEvents.record({
          type: e.type,
          emailId: e.emailId,
          recipient: e.recipient,
          bounceType: e.bounceType,
          idempotencyKey: e.idempotencyKey,
          source: e.source,
          occurredAt: e.occurredAt,
          data: e.data,
        });
        if (result.recorded) recorded++;
      }
      return recorded;
    });
  }
}
