import { createHash } from 'node:crypto';
import type { AddressObject, HeaderValue, ParsedMail } from 'mailparser';
import type { Attachment } from '../conversations/conversation';

/** What becomes of a mail read from an email channel's mailbox. */
export type MailKind = 'conversation' | 'auto_reply' | 'own';

const header = (mail: Pick<ParsedMail, 'headers'>, name: string): string | null => {
  const value: HeaderValue | undefined = mail.headers.get(name);
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && 'value' in value && typeof (value as { value: unknown }).value === 'string') return (value as { value: string }).value;
  return String(value);
};

/** The first sender address, lower-cased, and its display name. */
export function senderOf(mail: Pick<ParsedMail, 'from'>): { address: string; name: string | null } | null {
  const first = mail.from?.value.find((a) => a.address);
  return first?.address ? { address: first.address.trim().toLowerCase(), name: first.name?.trim() || null } : null;
}

/**
 * Automatic mail that must never open a conversation (nor answer one, which could start a loop of
 * auto-replies): `Auto-Submitted` other than `no` (RFC 3834: auto-replied, auto-generated),
 * `Precedence: bulk | junk | auto_reply`, the `X-Autoreply` / `X-Autorespond` family, delivery and
 * feedback reports (`multipart/report`), and mail from the mailer daemon or postmaster (bounces).
 */
export function isAutomatic(mail: Pick<ParsedMail, 'headers' | 'from'>): boolean {
  const autoSubmitted = header(mail, 'auto-submitted');
  if (autoSubmitted && autoSubmitted.split(';')[0].trim().toLowerCase() !== 'no') return true;
  const precedence = header(mail, 'precedence')?.trim().toLowerCase();
  if (precedence && ['bulk', 'junk', 'auto_reply'].includes(precedence)) return true;
  for (const name of ['x-autoreply', 'x-autorespond', 'x-autoresponse', 'x-autoresponder']) {
    const value = header(mail, name);
    if (value !== null && value.trim().toLowerCase() !== 'no') return true;
  }
  if (/^multipart\/report\b/i.test(header(mail, 'content-type') ?? '')) return true;
  const from = senderOf(mail)?.address ?? '';
  return /^(mailer-daemon|postmaster)@/.test(from);
}

/** Own mail (its From is the channel's address), an automatic reply, or mail that goes to a conversation. */
export function classifyMail(mail: Pick<ParsedMail, 'headers' | 'from'>, channelAddress: string): MailKind {
  const from = senderOf(mail);
  if (from?.address === channelAddress.toLowerCase()) return 'own';
  if (!from || isAutomatic(mail)) return 'auto_reply';
  return 'conversation';
}

const MESSAGE_ID = /<[^<>\s]+>/g;

/** The Message-IDs a mail answers: In-Reply-To first, then References newest first (where a thread is looked up). */
export function threadIdsOf(mail: Pick<ParsedMail, 'inReplyTo' | 'references'>): string[] {
  const refs = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  const ids = [...(mail.inReplyTo?.match(MESSAGE_ID) ?? []), ...refs.flatMap((r) => r.match(MESSAGE_ID) ?? []).reverse()];
  return [...new Set(ids)].slice(0, 50);
}

/** The mail's id on the channel: its Message-ID, else a digest of the raw message (the same mail read twice is one message). */
export function sourceIdOf(mail: Pick<ParsedMail, 'messageId'>, raw: Buffer): string {
  const id = mail.messageId?.match(MESSAGE_ID)?.[0];
  return id ?? `<sha256.${createHash('sha256').update(raw).digest('hex')}@mail.invalid>`;
}

const addresses = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((o) => o.value).filter((a) => a.address).map((a) => ({ address: a.address!.toLowerCase(), name: a.name || null }));

/** The headers kept with the message (`content_attributes.email`), what a reply's threading needs among them. */
export function emailAttributes(mail: ParsedMail, messageId: string): Record<string, unknown> {
  const refs = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  return {
    subject: mail.subject ?? '',
    from: addresses(mail.from),
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    message_id: messageId,
    in_reply_to: mail.inReplyTo?.match(MESSAGE_ID)?.[0] ?? null,
    references: refs.flatMap((r) => r.match(MESSAGE_ID) ?? []).slice(-50),
    date: mail.date?.toISOString() ?? null,
  };
}

/** An attachment's kind as the messages show it. */
export function attachmentType(mimeType: string): Attachment['type'] {
  const top = mimeType.split('/')[0].toLowerCase();
  return top === 'image' || top === 'video' || top === 'audio' ? top : 'document';
}

/** The text kept as the message: the plain-text part (mailparser derives one from HTML-only mail), at most `max` characters. */
export function mailText(mail: Pick<ParsedMail, 'text' | 'subject'>, max = 100_000): string {
  const text = (mail.text ?? '').replace(/\u0000/g, '').trim();
  const body = text || (mail.subject ?? '').trim();
  return body.length > max ? `${body.slice(0, max)}…` : body;
}
