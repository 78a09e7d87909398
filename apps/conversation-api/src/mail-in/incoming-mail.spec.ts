import { simpleParser } from 'mailparser';
import { replyThread } from '../channels/email-threading';
import { classifyMail, sourceIdOf, threadIdsOf } from './incoming-mail';

const mail = (headers: string, body = 'hello') => simpleParser(Buffer.from(`${headers.trim().split('\n').map((l) => l.trim()).join('\r\n')}\r\n\r\n${body}\r\n`));

describe('incoming mail', () => {
  it('tells automatic replies and own mail from mail that opens a conversation', async () => {
    const base = 'From: Kim <kim@example.org>\nTo: support@example.com\nSubject: help';
    expect(classifyMail(await mail(base), 'support@example.com')).toBe('conversation');
    expect(classifyMail(await mail(`${base}\nAuto-Submitted: no`), 'support@example.com')).toBe('conversation');
    expect(classifyMail(await mail(`${base}\nAuto-Submitted: auto-replied`), 'support@example.com')).toBe('auto_reply');
    expect(classifyMail(await mail(`${base}\nAuto-Submitted: auto-generated; type=vacation`), 'support@example.com')).toBe('auto_reply');
    for (const p of ['bulk', 'junk', 'auto_reply', 'Bulk']) expect(classifyMail(await mail(`${base}\nPrecedence: ${p}`), 'support@example.com')).toBe('auto_reply');
    expect(classifyMail(await mail(`${base}\nPrecedence: list`), 'support@example.com')).toBe('conversation');
    expect(classifyMail(await mail(`${base}\nX-Autoreply: yes`), 'support@example.com')).toBe('auto_reply');
    expect(classifyMail(await mail('From: MAILER-DAEMON@mx.example.org\nTo: support@example.com\nSubject: Undelivered'), 'support@example.com')).toBe('auto_reply');
    expect(classifyMail(await mail('From: Support <Support@Example.com>\nTo: kim@example.org\nSubject: copy'), 'support@example.com')).toBe('own');
    expect(classifyMail(await mail('To: support@example.com\nSubject: no sender'), 'support@example.com')).toBe('auto_reply');
  });

  it('finds the thread ids: In-Reply-To first, then References newest first', async () => {
    const parsed = await mail('From: kim@example.org\nMessage-ID: <c@x>\nIn-Reply-To: <b@x>\nReferences: <a@x> <b@x>');
    expect(threadIdsOf(parsed)).toEqual(['<b@x>', '<a@x>']);
    expect(threadIdsOf(await mail('From: kim@example.org'))).toEqual([]);
    expect(sourceIdOf(parsed, Buffer.from('x'))).toBe('<c@x>');
    const anonymous = await mail('From: kim@example.org');
    expect(sourceIdOf(anonymous, Buffer.from('raw'))).toBe(sourceIdOf(anonymous, Buffer.from('raw')));
    expect(sourceIdOf(anonymous, Buffer.from('raw'))).toMatch(/^<sha256\.[0-9a-f]{64}@mail\.invalid>$/);
  });

  it('threads a reply under the latest mail', () => {
    const thread = replyThread('0b5c7a36-1111-4222-8333-444455556666', 'support@example.com', { messageId: '<c@x>', email: { subject: 'Order missing', references: ['<a@x>', '<b@x>'] } }, 'Conversation #1');
    expect(thread).toEqual({ messageId: '<0b5c7a36-1111-4222-8333-444455556666@example.com>', subject: 'Re: Order missing', inReplyTo: '<c@x>', references: ['<a@x>', '<b@x>', '<c@x>'] });
    expect(replyThread('id', 'support@example.com', { messageId: '<c@x>', email: { subject: 'RE: Order' } }, 'x').subject).toBe('RE: Order');
    expect(replyThread('id', 'support@example.com', null, 'Conversation #4')).toEqual({ messageId: '<id@example.com>', subject: 'Conversation #4' });
  });
});
