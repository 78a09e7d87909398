import { Injectable, Logger } from '@nestjs/common';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import type { EmailSettings, MailServer } from './email-settings';
import { ProviderError } from './whatsapp.client';

/**
 * A mail server failed or refused: `transient` when trying again later may succeed (no connection,
 * a timeout, an SMTP 4xx answer), false when it will not as it stands (SMTP 5xx: bad recipient,
 * refused credentials).
 */
export class MailServerError extends ProviderError {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly responseCode?: number,
  ) {
    super(message, responseCode);
  }
}

/** One mail found in the mailbox: its UID, size, and the raw message — only its header when it is larger than the limit (`truncated`). */
export interface MailboxMail {
  uid: number;
  size: number;
  raw: Buffer;
  truncated: boolean;
}

export interface MailboxCursor {
  uidValidity: number;
  lastUid: number;
}

/** What an agent's reply sends: text, with the thread's headers. */
export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  /** `<…>` Message-ID given to the mail (replies of the contact name it in In-Reply-To). */
  messageId: string;
  inReplyTo?: string;
  references?: string[];
}

const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

function smtpError(err: unknown): MailServerError {
  const e = err as Error & { responseCode?: number; code?: string; response?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  // No answer (connection refused, timeout, greeting lost) or a 4xx: later may work; 5xx and refused credentials will not.
  const transient = code === undefined ? e.code !== 'EAUTH' && e.code !== 'EENVELOPE' : code < 500;
  return new MailServerError(`SMTP: ${e.response ?? e.message}`, transient, code);
}

function imapError(err: unknown): MailServerError {
  const e = err as Error & { authenticationFailed?: boolean; responseText?: string; code?: string };
  if (e.authenticationFailed) return new MailServerError(`IMAP: authentication failed${e.responseText ? ` (${e.responseText})` : ''}`, false);
  return new MailServerError(`IMAP: ${e.responseText ?? e.message}${e.code ? ` (${e.code})` : ''}`, true);
}

/**
 * The email channel's two servers: IMAP (imapflow) to read the mailbox, SMTP (nodemailer) to send.
 * A connection per poll and per mail: mailboxes are polled every minute or so, and replies are few.
 */
@Injectable()
export class EmailClient {
  private readonly logger = new Logger(EmailClient.name);

  private imap(server: MailServer, password: string): ImapFlow {
    const client = new ImapFlow({ host: server.host, port: server.port, secure: server.secure, auth: { user: server.user, pass: password }, logger: false, disableAutoIdle: true, ...TIMEOUTS });
    // A dropped connection is reported by the command in flight; the emitter must not throw.
    client.on('error', (err: Error) => this.logger.debug(`IMAP ${server.host}: ${err.message}`));
    return client;
  }

  /** Logs in and opens the mailbox: its UIDVALIDITY and message count; throws MailServerError. */
  async checkImap(settings: EmailSettings['imap'], password: string): Promise<{ uidValidity: number; messages: number }> {
    const client = this.imap(settings, password);
    try {
      await client.connect();
      const box = await client.mailboxOpen(settings.mailbox, { readOnly: true });
      return { uidValidity: Number(box.uidValidity), messages: box.exists };
    } catch (err) {
      throw err instanceof MailServerError ? err : imapError(err);
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  /** Connects and authenticates (EHLO, STARTTLS when offered, AUTH), sends nothing; throws MailServerError. */
  async checkSmtp(settings: EmailSettings['smtp'], password: string): Promise<void> {
    const transport = nodemailer.createTransport({ host: settings.host, port: settings.port, secure: settings.secure, auth: { user: settings.user, pass: password }, ...TIMEOUTS });
    try {
      await transport.verify();
    } catch (err) {
      throw smtpError(err);
    } finally {
      transport.close();
    }
  }

  /** Sends one mail; resolves with its Message-ID. */
  async send(settings: EmailSettings['smtp'], password: string, mail: OutgoingMail): Promise<string> {
    const transport = nodemailer.createTransport({ host: settings.host, port: settings.port, secure: settings.secure, auth: { user: settings.user, pass: password }, ...TIMEOUTS });
    try {
      await transport.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
        ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
        ...(mail.references?.length ? { references: mail.references } : {}),
      });
      return mail.messageId;
    } catch (err) {
      throw smtpError(err);
    } finally {
      transport.close();
    }
  }

  /**
   * Reads the mailbox (read-only: flags are left alone) past the cursor: the mails whose UID is above
   * `cursor.lastUid` while the mailbox's UIDVALIDITY is the cursor's; without a cursor, or when
   * UIDVALIDITY changed (the server renumbered the mailbox, so old UIDs mean nothing), the mails
   * received since `since` (day granularity, IMAP SEARCH SINCE). Hands each to `take` in UID order,
   * at most `limit`, the raw source only when not above `maxBytes`; `take` runs before the next one
   * is read, so a cursor it advances never passes a mail that was not taken. `uidNext`: the UID the
   * next mail will get, as the mailbox said when it was opened (every mail below it was looked at
   * when `more` is false).
   */
  async readNew(
    settings: EmailSettings['imap'],
    password: string,
    cursor: MailboxCursor | null,
    since: Date,
    opts: { limit: number; maxBytes: number },
    take: (mail: MailboxMail, uidValidity: number) => Promise<void>,
  ): Promise<{ uidValidity: number; uidNext: number | null; taken: number; more: boolean }> {
    const client = this.imap(settings, password);
    let takeFailed = false;
    try {
      await client.connect();
      const lock = await client.getMailboxLock(settings.mailbox, { readOnly: true });
      try {
        const box = client.mailbox;
        if (!box) throw new MailServerError(`IMAP: mailbox ${settings.mailbox} could not be opened`, true);
        const uidValidity = Number(box.uidValidity);
        const uidNext = Number.isInteger(box.uidNext) && box.uidNext > 0 ? box.uidNext : null;
        const continuing = cursor !== null && cursor.uidValidity === uidValidity;
        const found = continuing ? await client.search({ uid: `${cursor.lastUid + 1}:*` }, { uid: true }) : await client.search({ since }, { uid: true });
        // `n:*` always names the last message, even when its UID is below n.
        const uids = (found || []).filter((uid) => !continuing || uid > cursor.lastUid).sort((a, b) => a - b);
        const batch = uids.slice(0, opts.limit);
        const sizes = new Map<number, number>();
        if (batch.length) {
          for await (const m of client.fetch(batch.join(','), { uid: true, size: true }, { uid: true })) sizes.set(m.uid, m.size ?? 0);
        }
        let taken = 0;
        for (const uid of batch) {
          const size = sizes.get(uid);
          if (size === undefined) continue; // expunged meanwhile
          const truncated = size > opts.maxBytes;
          const msg = await client.fetchOne(String(uid), truncated ? { uid: true, headers: true } : { uid: true, source: true }, { uid: true });
          const raw = msg ? (truncated ? msg.headers : msg.source) : undefined;
          if (!raw) continue; // expunged meanwhile
          try {
            await take({ uid, size, raw, truncated }, uidValidity);
          } catch (err) {
            takeFailed = true;
            throw err;
          }
          taken++;
        }
        return { uidValidity, uidNext, taken, more: uids.length > batch.length };
      } finally {
        lock.release();
      }
    } catch (err) {
      throw err instanceof MailServerError || takeFailed ? err : imapError(err);
    } finally {
      await client.logout().catch(() => client.close());
    }
  }
}
