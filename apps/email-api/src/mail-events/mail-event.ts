export const MAIL_EVENT_TYPES = ['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe', 'received'] as const;
export type MailEventType = (typeof MAIL_EVENT_TYPES)[number];
export type BounceType = 'hard' | 'soft';
/** Why an open or click is left out of the human figures (null: human). */
export type MailEventFlag = 'privacy_proxy' | 'scanner';

export interface MailEventInput {
  type: MailEventType;
  /** The mail (`eml_…`) the event is about; the project, contact, campaign and workflow execution come from it. */
  emailId?: string | null;
  /** Needed when there is no mail (inbound mail replying to nothing, an unsubscribe by link); used when `emailId` names no mail. */
  projectId?: string | null;
  /** Used when there is no mail; otherwise the mail's contact. */
  contactId?: string | null;
  /** The address concerned (default: the mail's recipient); lower-cased. */
  recipient?: string | null;
  /** Required for `bounce`, absent otherwise. */
  bounceType?: BounceType;
  /** Unique per project: a second record with the same key is a no-op. */
  idempotencyKey: string;
  occurredAt?: Date;
  /** Where the event came from (`smtp`, `smtp-dsn`, `smtp-arf`, `ses`, `inbound`, `pixel`, `link`, `unsubscribe-link`, …; ≤ 40 characters). */
  source: string;
  data?: Record<string, unknown> | null;
  /** Clicks: the link followed. */
  url?: string | null;
  flag?: MailEventFlag | null;
}

export interface RecordedMailEvent {
  id: string;
  projectId: string;
  emailId: string | null;
  contactId: string | null;
  campaignId: string | null;
  type: MailEventType;
  bounceType: BounceType | null;
  recipient: string | null;
  createdAt: Date;
}
