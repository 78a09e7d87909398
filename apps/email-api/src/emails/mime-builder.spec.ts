import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { verifyDkim } from '../../test/dkim';
import { DKIM_SIGNED_HEADERS } from './message-builder';
import { MimeBuilder } from './mime-builder';

describe('MimeBuilder (worker threads)', () => {
  const builder = new MimeBuilder();
  afterAll(() => builder.onApplicationShutdown());

  it('answers each message with its own bytes when many are built at once', async () => {
    const built = await Promise.all(
      Array.from({ length: 60 }, (_, i) => builder.build({ from: 'news@acme.test', to: `reader${i}@example.com`, subject: `Issue ${i}`, html: `<p>${i}</p>`, messageId: `<m${i}@acme.test>` }, null)),
    );
    built.forEach((b, i) => {
      const text = b.raw.toString('utf8');
      expect(text).toContain(`Subject: Issue ${i}\r\n`);
      expect(text).toContain(`Message-ID: <m${i}@acme.test>`);
      expect(b.envelope).toEqual({ from: 'news@acme.test', to: [`reader${i}@example.com`] });
    });
  });

  it('signs with the DKIM key it is given and keeps the envelope it is given', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const b = await builder.build(
      { from: 'news@acme.test', to: 'reader@example.com', subject: 'Signed', text: 'x', envelope: { from: 'bounces+1@bounce.acme.test', to: 'reader@example.com' } },
      { domainName: 'acme.test', keySelector: 'sel1', privateKey },
    );
    expect(b.raw.toString('utf8')).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;\s+q=dns\/txt; s=sel1;/);
    expect(b.envelope).toEqual({ from: 'bounces+1@bounce.acme.test', to: ['reader@example.com'] });
  });

  it('signs exactly as nodemailer would send it, for a one-part message and for one with an attachment', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dkim = { domainName: 'acme.test', keySelector: 'sel1', privateKey };
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    const published = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    for (const extra of [{}, { attachments: [{ filename: 'report.csv', content: 'a,b\n1,2\n' }] }]) {
      const message = {
        date: new Date('2026-11-24T12:00:00Z'),
        messageId: '<m1@acme.test>',
        from: { name: 'Acme News', address: 'news@acme.test' },
        to: 'Reader <reader@example.com>',
        subject: 'Spring news — 20 % off',
        html: '<p>Hello  Reader,\n\nour   spring news.</p>   \n\n\n',
        headers: { 'List-Unsubscribe': '<https://acme.test/u/1>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        envelope: { from: 'bounces+1@bounce.acme.test', to: 'reader@example.com' },
        baseBoundary: 'fixed-for-the-test',
        ...extra,
      };
      const ours = await builder.build(message, dkim);
      const theirs = await transport.sendMail({ ...message, dkim: { ...dkim, headerFieldNames: DKIM_SIGNED_HEADERS } });
      expect(ours.raw.toString('latin1')).toBe(theirs.message.toString('latin1'));
      expect(ours.envelope).toEqual({ from: 'bounces+1@bounce.acme.test', to: ['reader@example.com'] });
      expect(verifyDkim(ours.raw.toString('latin1'), published).h).toContain('list-unsubscribe-post');
    }
  });

  it('derives the envelope from the addresses when none is given', async () => {
    const { envelope } = await builder.build({ from: 'News <news@acme.test>', to: ['a@example.com', 'B <b@example.com>'], subject: 's', html: 'x' }, null);
    expect(envelope).toEqual({ from: 'news@acme.test', to: ['a@example.com', 'b@example.com'] });
  });

  it('reads no files and no URLs: a message with an attachment given as a path fails, the others are built', async () => {
    const bad = builder.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 's', attachments: [{ path: '/etc/hostname' }] }, null);
    const good = builder.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 'fine', text: 'x' }, null);
    await expect(bad).rejects.toThrow(/File access rejected/i);
    await expect(good).resolves.toMatchObject({ envelope: { to: ['reader@example.com'] } });
  });

  it('on shutdown finishes the messages under way, then refuses new ones', async () => {
    const own = new MimeBuilder();
    const underWay = own.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 'last', text: 'x' }, null);
    await own.onApplicationShutdown();
    await expect(underWay).resolves.toMatchObject({ envelope: { to: ['reader@example.com'] } });
    await expect(own.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 'late', text: 'x' }, null)).rejects.toThrow('shut down');
  });
});
