import type { MailThread } from './channels.service';

/** The subject of a reply: `Re: <subject>` unless it is one already; `fallback` when there is none. */
export function replySubject(subject: string | null | undefined, fallback: string): string {
  const s = (subject ?? '').trim();
  if (!s) return fallback;
  return /^re:/i.test(s) ? s : `Re: ${s}`;
}

/**
 * The thread of an agent's email reply (RFC 5322 §3.6.4): it answers the conversation's latest mail
 * (`latest`, either way): In-Reply-To its Message-ID, References its References followed by its
 * Message-ID (the last 20), the subject `Re: …`. Its own Message-ID is derived from the message id
 * and the channel's domain, so a retried send carries the same one.
 */
export function replyThread(messageUuid: string, channelAddress: string, latest: { messageId: string; email: Record<string, unknown> } | null, fallbackSubject: string): MailThread {
  const domain = channelAddress.split('@')[1] ?? 'localhost';
  const messageId = `<${messageUuid}@${domain}>`;
  if (!latest) return { messageId, subject: fallbackSubject };
  const refs = Array.isArray(latest.email.references) ? (latest.email.references as unknown[]).filter((r): r is string => typeof r === 'string') : [];
  return {
    messageId,
    subject: replySubject(typeof latest.email.subject === 'string' ? latest.email.subject : null, fallbackSubject),
    inReplyTo: latest.messageId,
    references: [...refs.filter((r) => r !== latest.messageId), latest.messageId].slice(-20),
  };
}
