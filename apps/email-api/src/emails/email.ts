import type { BillingCategory } from '../billing/billing';

export type EmailKind = 'TRANSACTIONAL' | 'MARKETING' | 'SYSTEM';
export type EmailSource = 'API' | 'CAMPAIGN' | 'WORKFLOW' | 'SYSTEM';
export type EmailStatus = 'QUEUED' | 'SENDING' | 'SENT' | 'FAILED' | 'SUPPRESSED' | 'STORED' | 'CANCELLED';

/** The counter a mail of this source is counted in; platform mail (SYSTEM) never is. */
export function categoryOfSource(source: EmailSource): BillingCategory | null {
  switch (source) {
    case 'API':
      return 'transactional';
    case 'CAMPAIGN':
      return 'campaigns';
    case 'WORKFLOW':
      return 'workflows';
    default:
      return null;
  }
}

export interface StoredAttachment {
  filename: string;
  /** base64 */
  content: string;
  contentType?: string;
  contentId?: string;
  disposition?: 'attachment' | 'inline';
}

export interface NewEmail {
  projectId: string | null;
  contactId: string | null;
  kind: EmailKind;
  source: EmailSource;
  status: EmailStatus;
  statusReason: string | null;
  to: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  subject: string;
  html: string;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  data: Record<string, unknown> | null;
  /** The template the mail was made from (POST /v1/send with `template`). */
  templateId?: string | null;
  /** Made in advance when the HTML must name the mail (tracking); generated otherwise. */
  id?: string;
  /** The links of a tracked mail (a click redirects only to these). */
  links?: string[] | null;
  /** The workflow execution whose SEND_EMAIL step wrote the mail (its mail events carry it too). */
  workflowExecutionId?: string | null;
}

export interface EmailRow {
  id: string;
  project_id: string | null;
  contact_id: string | null;
  kind: EmailKind;
  source: EmailSource;
  status: EmailStatus;
  status_reason: string | null;
  to_email: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  html: string;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  data: Record<string, unknown> | null;
  message_id: string | null;
  campaign_id: string | null;
  /** Send order within a project: 1 transactional and platform mail, 5 workflow, 10 campaign (generated from `source`). */
  priority?: number;
  next_attempt_at?: Date;
  attempts: number;
  sent_at: Date | null;
  created_at: Date;
}

/** Why a mail was stored and not sent when no SMTP server is configured. */
export const NOT_SENT_NO_SMTP = 'SMTP_URL is not configured: the email was stored in the activity feed and not sent';
