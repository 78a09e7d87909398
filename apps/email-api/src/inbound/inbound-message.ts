import type { AuthResults } from './mail-auth';

/** The SMTP envelope of a received message. */
export interface InboundEnvelope {
  /** MAIL FROM; '' for the null sender `<>` (DSNs). */
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string;
  /** The name the client gave in EHLO/HELO. */
  heloName: string;
}

export interface InboundAttachment {
  filename: string | null;
  contentType: string;
  size: number;
  /** SHA-256 of the content, hex. */
  checksum: string;
  /** Where the file is, relative to DATA_DIR. */
  path: string;
}

export interface NewInboundMessage {
  id: string;
  projectId: string;
  messageKey: string;
  messageId: string | null;
  inReplyTo: string | null;
  emailId: string | null;
  mailFrom: string;
  rcptTo: string[];
  fromEmail: string | null;
  fromName: string | null;
  toEmails: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  headers: Array<{ name: string; value: string }>;
  attachments: InboundAttachment[];
  auth: AuthResults;
  size: number;
  remoteAddress: string;
  helo: string;
  rawPath: string;
}

export interface InboundMessageRow {
  id: string;
  project_id: string;
  message_key: string;
  message_id: string | null;
  in_reply_to: string | null;
  email_id: string | null;
  mail_from: string;
  rcpt_to: string[];
  from_email: string | null;
  from_name: string | null;
  to_emails: string[];
  subject: string | null;
  text_body: string | null;
  html_body: string | null;
  headers: Array<{ name: string; value: string }>;
  attachments: InboundAttachment[];
  auth: AuthResults;
  size: number;
  remote_address: string | null;
  helo: string | null;
  raw_path: string;
  created_at: Date;
}

/** A received message as the API answers it. */
export interface InboundMessage {
  id: string;
  messageId: string | null;
  inReplyTo: string | null;
  /** The sent mail this replies to (`eml_…`), from In-Reply-To or References. */
  emailId: string | null;
  from: { email: string | null; name: string | null };
  to: string[];
  envelope: { mailFrom: string; rcptTo: string[]; remoteAddress: string | null; helo: string | null };
  subject: string | null;
  text: string | null;
  html: string | null;
  headers: Array<{ name: string; value: string }>;
  attachments: Array<Omit<InboundAttachment, 'path'>>;
  auth: AuthResults;
  size: number;
  createdAt: Date;
}

export function toInboundMessage(r: InboundMessageRow, full: boolean): InboundMessage {
  return {
    id: r.id,
    messageId: r.message_id,
    inReplyTo: r.in_reply_to,
    emailId: r.email_id,
    from: { email: r.from_email, name: r.from_name },
    to: r.to_emails,
    envelope: { mailFrom: r.mail_from, rcptTo: r.rcpt_to, remoteAddress: r.remote_address, helo: r.helo },
    subject: r.subject,
    text: full ? r.text_body : null,
    html: full ? r.html_body : null,
    headers: full ? r.headers : [],
    attachments: r.attachments.map(({ path: _path, ...a }) => a),
    auth: r.auth,
    size: r.size,
    createdAt: r.created_at,
  };
}
