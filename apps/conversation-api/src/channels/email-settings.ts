/** One mail server of an email channel (the password is sealed apart, in the channel's credentials). */
export interface MailServer {
  host: string;
  port: number;
  /** TLS from the start (IMAPS 993, SMTPS 465); false: plain, upgraded with STARTTLS when the server offers it. */
  secure: boolean;
  user: string;
}

/** Where an email channel reads (IMAP) and sends (SMTP) its mail. */
export interface EmailSettings {
  imap: MailServer & { mailbox: string };
  smtp: MailServer;
}

/** The sealed part of an email channel. */
export interface EmailCredentials {
  imap_password: string;
  smtp_password: string;
}

/** The IMAP cursor and poll state of an email channel. */
export interface MailboxState {
  uidValidity: number | null;
  lastUid: number | null;
  lastPolledAt: Date | null;
  lastError: string | null;
  received: number;
  autoRepliesSkipped: number;
  ownMailsSkipped: number;
}
