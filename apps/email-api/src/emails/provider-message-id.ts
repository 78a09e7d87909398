/**
 * The id an outgoing SMTP server gave a mail, read from its acceptance reply: Amazon SES's SMTP
 * interface answers `250 Ok 0100018c…-000000` (that id is `mail.messageId` in its events), Postfix
 * `250 2.0.0 Ok: queued as 4Xyz…`, others `250 OK id=…` or `250 2.0.0 <id> Message accepted`.
 * null when the reply names no id.
 */
export function providerMessageId(reply: string | undefined | null): string | null {
  if (!reply) return null;
  const text = reply.trim();
  if (!/^250[ -]/.test(text)) return null;
  const rest = text.slice(4).replace(/^\d\.\d{1,3}\.\d{1,3}\s+/, '');
  const patterns = [
    /\bid=<?([A-Za-z0-9][A-Za-z0-9._@+=-]*)>?/i,
    /queued as\s+<?([A-Za-z0-9][A-Za-z0-9._@+=-]*)>?/i,
    /^ok\s+<?([A-Za-z0-9][A-Za-z0-9._@+=-]{5,200})>?\s*$/i,
    /^<([^<>\s]{1,200})>/,
  ];
  for (const p of patterns) {
    const m = p.exec(rest);
    if (m) return m[1];
  }
  return null;
}
