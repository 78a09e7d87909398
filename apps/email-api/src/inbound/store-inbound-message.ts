import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { EmailReceived, Outbox } from '@platform/messaging';
import type { AddressObject, ParsedMail } from 'mailparser';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BillingUsage } from '../billing/billing-usage.service';
import { EmailApiConfig } from '../config';
import { SentMails } from '../emails/sent-mails.service';
import { emailIdOfMessageId } from '../emails/verp';
import { MailEventsService } from '../mail-events/mail-events.service';
import type { InboundAttachment, InboundEnvelope } from './inbound-message';
import { InboundMessagesRepository } from './inbound-messages.repository';
import { MailAuthChecker, type AuthResults } from './mail-auth';
import { storableMail } from './storable-mail';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Thrown inside the storing transaction to roll it back when the project's inbound cap is reached. */
const OVER_CAP = new Error('inbound billing limit reached');

/** `inb_` and 20 random base-36 characters. */
export function newInboundId(): string {
  return `inb_${[...randomBytes(20)].map((b) => ALPHABET[b % 36]).join('')}`;
}

const addresses = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((a) => a.value).map((v) => v.address?.toLowerCase()).filter((a): a is string => !!a);

/** One DKIM verdict for the message: `pass` when a signature passed, else the first signature's result, else `none`. */
function dkimVerdict(auth: AuthResults): string {
  return auth.dkim.some((d) => d.result === 'pass') ? 'pass' : (auth.dkim[0]?.result ?? 'none');
}

/** The ids in `<…>` of In-Reply-To first, then References newest first. */
function repliedIds(mail: ParsedMail): string[] {
  const refs = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  return [...(mail.inReplyTo ? mail.inReplyTo.split(/\s+/) : []), ...refs.slice().reverse()].filter(Boolean);
}

/**
 * Mail received for a project's verified domain: parsed with `mailparser`, SPF, DKIM and DMARC
 * checked with `mailauth` (once for every project), and for each project the message is stored
 * (headers, text, HTML; the raw message and each attachment as files under
 * `DATA_DIR/email-api/inbound/<project>/<message id>/`) together with a `received` mail event (the
 * activity feed), in one transaction. A reply is linked to the sent mail its In-Reply-To (else its
 * References) names — this service's Message-IDs carry the mail's id — when that mail is the
 * project's. The same message delivered again (same Message-ID, or the same bytes without one) is
 * stored once.
 *
 * Billing: each message stored takes one unit of the project's monthly `inbound` cap in its
 * transaction. Over the cap the message is still accepted at SMTP (250: the sender is not told about
 * the recipient's plan, and the other projects the message is for still get it) but not stored, not
 * put in the activity feed and not published; a warning is logged.
 */
@Injectable()
export class StoreInboundMessage {
  private readonly logger = new Logger('InboundMail');

  constructor(
    private readonly config: EmailApiConfig,
    private readonly transactions: Transactions,
    private readonly messages: InboundMessagesRepository,
    private readonly sentMails: SentMails,
    private readonly mailEvents: MailEventsService,
    private readonly auth: MailAuthChecker,
    private readonly outbox: Outbox,
    private readonly billing: BillingUsage,
  ) {}

  /** Stores the message for each project; answers the ids stored now (none for a repeat). */
  async execute(raw: Buffer, envelope: InboundEnvelope, projectIds: string[]): Promise<string[]> {
    // Loaded with the first message: the parser's modules are not needed to start.
    const { simpleParser } = await import('mailparser');
    const mail = storableMail(await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true }));
    const auth = await this.auth.check(raw, { ip: envelope.remoteAddress, helo: envelope.heloName, sender: envelope.mailFrom });
    const messageId = mail.messageId ? mail.messageId.replace(/^<|>$/g, '') : null;
    const messageKey = messageId ? `mid:${messageId}` : `sha256:${createHash('sha256').update(raw).digest('hex')}`;
    const replied = repliedIds(mail)
      .map((id) => emailIdOfMessageId(id))
      .filter((id): id is string => !!id);
    const sent = replied.length ? await this.sentMails.find(replied) : [];
    const stored: string[] = [];
    for (const projectId of projectIds) {
      const repliesTo = replied.map((id) => sent.find((m) => m.id === id && m.projectId === projectId)).find(Boolean) ?? null;
      const id = await this.storeFor(projectId, raw, mail, envelope, auth, { messageId, messageKey, emailId: repliesTo?.id ?? null });
      if (id) stored.push(id);
    }
    return stored;
  }

  private async storeFor(
    projectId: string,
    raw: Buffer,
    mail: ParsedMail,
    envelope: InboundEnvelope,
    auth: AuthResults,
    ids: { messageId: string | null; messageKey: string; emailId: string | null },
  ): Promise<string | null> {
    const id = newInboundId();
    const relDir = join('email-api', 'inbound', projectId, id);
    const dir = join(this.config.DATA_DIR, relDir);
    await mkdir(dir, { recursive: true });
    try {
      await writeFile(join(dir, 'message.eml'), raw);
      const attachments: InboundAttachment[] = [];
      for (const [i, a] of mail.attachments.entries()) {
        const file = `attachment-${i + 1}`;
        await writeFile(join(dir, file), a.content);
        attachments.push({ filename: a.filename ?? null, contentType: a.contentType, size: a.size ?? a.content.length, checksum: createHash('sha256').update(a.content).digest('hex'), path: join(relDir, file) });
      }
      const from = (Array.isArray(mail.from) ? mail.from[0] : mail.from)?.value[0];
      const headers = mail.headerLines.map((h) => ({ name: h.key, value: h.line.slice(h.line.indexOf(':') + 1).trim() }));
      const fromEmail = from?.address?.toLowerCase() ?? null;
      let overCap = false;
      const row = await this.transactions.transaction(async () => {
        const inserted = await this.messages.insert({
          id,
          projectId,
          messageKey: ids.messageKey,
          messageId: ids.messageId,
          inReplyTo: mail.inReplyTo ?? null,
          emailId: ids.emailId,
          mailFrom: envelope.mailFrom,
          rcptTo: envelope.rcptTo,
          fromEmail,
          fromName: from?.name || null,
          toEmails: [...addresses(mail.to), ...addresses(mail.cc)],
          subject: mail.subject ?? null,
          text: mail.text ?? null,
          html: typeof mail.html === 'string' ? mail.html : null,
          headers,
          attachments,
          auth,
          size: raw.length,
          remoteAddress: envelope.remoteAddress,
          helo: envelope.heloName,
          rawPath: join(relDir, 'message.eml'),
        });
        if (!inserted) return null;
        if (!(await this.billing.tryConsume(projectId, 'inbound'))) {
          overCap = true;
          throw OVER_CAP;
        }
        await this.mailEvents.record({
          type: 'received',
          emailId: ids.emailId,
          projectId,
          recipient: fromEmail,
          idempotencyKey: `received:${ids.messageKey}`.slice(0, 300),
          source: 'inbound',
          data: { inboundId: id, subject: mail.subject ?? null, from: fromEmail, spf: auth.spf.result, dkim: auth.dkim.map((d) => `${d.result}${d.domain ? ` (${d.domain})` : ''}`), dmarc: auth.dmarc.result },
        });
        // On the bus once: only the first delivery of a message inserts its row.
        await this.outbox.enqueue(EmailReceived, {
          projectId,
          inboundId: id,
          messageId: ids.messageId,
          inReplyToEmailId: ids.emailId,
          from: fromEmail,
          to: envelope.rcptTo,
          subject: mail.subject ?? null,
          authentication: { spf: auth.spf.result, dkim: dkimVerdict(auth), dmarc: auth.dmarc.result },
          receivedAt: new Date().toISOString(),
        });
        return inserted;
      }).catch((err: unknown) => {
        if (err === OVER_CAP) return null;
        throw err;
      });
      if (!row) {
        await rm(dir, { recursive: true, force: true });
        if (overCap) this.logger.warn(`inbound mail for project ${projectId} from ${fromEmail ?? envelope.mailFrom} not stored: the monthly inbound limit is reached`);
        return null;
      }
      this.logger.log(`inbound ${id} for project ${projectId} from ${fromEmail ?? envelope.mailFrom}${ids.emailId ? `, replying to ${ids.emailId}` : ''}`);
      return id;
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }
}
