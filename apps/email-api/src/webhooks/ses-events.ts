import { feedbackKey, type FeedbackEvent } from '../inbound/feedback';

/**
 * The mail events of an Amazon SES event (the `Message` of an SNS notification): SES's own
 * notifications (`notificationType`) and configuration-set event publishing (`eventType`) alike.
 * `Bounce` with `bounceType` Permanent is a hard bounce, Transient and Undetermined soft ones;
 * `Complaint` a complaint (unless its feedback type is `not-spam`); `Delivery` a delivery. Other
 * types (Send, Reject, Open, Click, DeliveryDelay, …) give none: opens and clicks are this
 * service's own tracking. `mail.messageId` is SES's id of the mail.
 */
export interface SesEventSummary {
  /** Bounce, Complaint, Delivery, or whatever else the event says. */
  type: string;
  /** `mail.messageId`: SES's id of the mail (its SMTP interface's `250 Ok <id>`). */
  providerMessageId: string | null;
  outcomes: Array<{ type: FeedbackEvent['type']; bounceType?: 'hard' | 'soft'; recipient: string; data: Record<string, unknown> }>;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const address = (v: unknown): string | null => {
  const s = str(v);
  if (!s) return null;
  return (/<([^>]+)>\s*$/.exec(s)?.[1] ?? s).trim().toLowerCase();
};

/** Reads an SES event; null when `message` is no JSON object. */
export function readSesEvent(message: string): SesEventSummary | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const e = parsed as Json;
  const type = str(e.notificationType) ?? str(e.eventType) ?? '';
  const providerMessageId = str(obj(e.mail).messageId);
  const outcomes: SesEventSummary['outcomes'] = [];
  if (type === 'Bounce') {
    const bounce = obj(e.bounce);
    const bounceType = bounce.bounceType === 'Permanent' ? 'hard' : 'soft';
    for (const r of arr(bounce.bouncedRecipients)) {
      const recipient = address(r.emailAddress);
      if (recipient) {
        outcomes.push({
          type: 'bounce',
          bounceType,
          recipient,
          data: { bounceType: str(bounce.bounceType), bounceSubType: str(bounce.bounceSubType), status: str(r.status), diagnosticCode: str(r.diagnosticCode), feedbackId: str(bounce.feedbackId) },
        });
      }
    }
  } else if (type === 'Complaint') {
    const complaint = obj(e.complaint);
    if (complaint.complaintFeedbackType !== 'not-spam') {
      for (const r of arr(complaint.complainedRecipients)) {
        const recipient = address(r.emailAddress);
        if (recipient) outcomes.push({ type: 'complaint', recipient, data: { feedbackType: str(complaint.complaintFeedbackType), userAgent: str(complaint.userAgent), feedbackId: str(complaint.feedbackId) } });
      }
    }
  } else if (type === 'Delivery') {
    const delivery = obj(e.delivery);
    for (const r of Array.isArray(delivery.recipients) ? delivery.recipients : []) {
      const recipient = address(r);
      if (recipient) outcomes.push({ type: 'delivery', recipient, data: { smtpResponse: str(delivery.smtpResponse), reportingMTA: str(delivery.reportingMTA) } });
    }
  }
  return { type, providerMessageId, outcomes };
}

/**
 * The events for the mail SES names, which went to `mailRecipient`: the outcomes for that
 * recipient (or the only one, should SES spell the address otherwise), keyed as the SMTP reports
 * are (`fb:<email id>:<kind>`), so the same bounce reported by a DSN and by SES lands once.
 */
export function sesFeedbackEvents(summary: SesEventSummary, mail: { emailId: string; recipient: string }, snsMessageId: string): FeedbackEvent[] {
  const mine = summary.outcomes.filter((o) => o.recipient === mail.recipient);
  const chosen = mine.length ? mine : summary.outcomes.length === 1 ? summary.outcomes : [];
  const events: FeedbackEvent[] = chosen.map((o) => ({
    type: o.type,
    bounceType: o.bounceType,
    emailId: mail.emailId,
    recipient: mail.recipient,
    idempotencyKey: feedbackKey(mail.emailId, o.type, o.bounceType),
    source: 'ses',
    data: { ...o.data, snsMessageId, sesRecipient: o.recipient },
  }));
  return events.filter((e, i) => events.findIndex((x) => x.idempotencyKey === e.idempotencyKey) === i);
}
