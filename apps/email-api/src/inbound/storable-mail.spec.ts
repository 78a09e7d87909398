import { simpleParser } from 'mailparser';
import { storableMail, storableText } from './storable-mail';

describe('storableMail', () => {
  // Found by `npm run fuzz`: a message with NUL in its body was answered 451 (the insert failed), every retry.
  it('replaces NUL and unpaired surrogates in what is stored, keeping the rest', async () => {
    const raw = Buffer.from('From: "A\u0000B" <a@example.com>\r\nSubject: hi\u0000there\r\nX-Odd: v\u0000\r\n\r\nbody\u0000end\r\n', 'utf8');
    const mail = storableMail(await simpleParser(raw));
    expect(mail.subject).toBe('hi\uFFFDthere');
    expect(mail.text).toContain('body\uFFFDend');
    expect(mail.from?.value[0].name).not.toContain('\u0000');
    expect(mail.headerLines.every((h) => !h.line.includes('\u0000'))).toBe(true);
    expect(JSON.stringify(mail.headerLines)).not.toContain('\\u0000');
  });

  it('leaves storable text and absent values alone', () => {
    expect(storableText('plain 😀 text')).toBe('plain 😀 text');
    expect(storableText('a\uD800b')).toBe('a\uFFFDb');
    expect(storableText(undefined)).toBeUndefined();
    expect(storableText(null)).toBeNull();
  });
});
