import type { ParsedMail } from 'mailparser';

/** NUL and unpaired UTF-16 surrogates: PostgreSQL stores neither in text nor in jsonb. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with what PostgreSQL cannot store replaced by U+FFFD (the replacement character). */
export function storableText<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? text.replace(UNSTORABLE, '\uFFFD') : text) as T;
}

/**
 * The parsed message with every text it is stored and published with made storable: a sender may
 * put NUL bytes in a body or a header (found by `npm run fuzz`: such a message was answered 451 and
 * retried forever, as the insert failed). The raw message (on disk, and what DKIM checked) is untouched.
 */
export function storableMail(mail: ParsedMail): ParsedMail {
  mail.subject = storableText(mail.subject);
  mail.text = storableText(mail.text);
  if (typeof mail.html === 'string') mail.html = storableText(mail.html);
  mail.messageId = storableText(mail.messageId);
  mail.inReplyTo = storableText(mail.inReplyTo);
  if (typeof mail.references === 'string') mail.references = storableText(mail.references);
  else if (Array.isArray(mail.references)) mail.references = mail.references.map((r) => storableText(r));
  mail.headerLines = mail.headerLines.map((h) => ({ key: storableText(h.key), line: storableText(h.line) }));
  for (const field of [mail.from, ...[mail.to, mail.cc].flat()]) {
    for (const a of field?.value ?? []) {
      a.name = storableText(a.name);
      if (a.address !== undefined) a.address = storableText(a.address);
    }
  }
  for (const a of mail.attachments) if (a.filename !== undefined) a.filename = storableText(a.filename);
  return mail;
}
