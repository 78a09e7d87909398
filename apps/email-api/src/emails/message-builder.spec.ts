import * as crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import * as url from 'node:url';
import * as base64 from 'nodemailer/lib/base64';
import DKIM from 'nodemailer/lib/dkim';
import MailComposer, { type MailComposerOptions } from 'nodemailer/lib/mail-composer';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import * as qp from 'nodemailer/lib/qp';
import { verifyDkim } from '../../test/dkim';
import { createMessageBuilder, DKIM_SIGNED_HEADERS } from './message-builder';

// In this process; mime-builder.spec.ts runs the same builder in the MIME threads.
const builder = createMessageBuilder({ crypto, url, MailComposer, qp, base64, mimeFuncs }, DKIM_SIGNED_HEADERS);
const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { domainName: 'acme.test', keySelector: 'sel1', privateKey };
const published = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

async function nodemailerSigned(message: Buffer): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of new DKIM({ ...key, headerFieldNames: DKIM_SIGNED_HEADERS }).sign(message) as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('latin1');
}

/** A seeded random source: the same inputs on every run. */
function seeded(seed: number) {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  return { next, pick };
}

/** A seeded generator of the awkward inputs a composer meets: non-ASCII, long lines, odd whitespace and line ends. */
function generator(seed: number) {
  const { next, pick } = seeded(seed);
  const pieces = ['Hello', ' ', '  ', '\t', 'Grüße', 'naïve café', '日本語', '🎉', '=', '.', 'a'.repeat(90), '\n', '\r\n', '\r', ' \r\n', '<p>', '</p>', '{{x}}', '"', 'x@y'];
  const text = (max: number) => Array.from({ length: Math.floor(next() * max) }, () => pick(pieces)).join('');
  return { next, pick, text };
}

/** A seeded generator of header blocks (from a From field on) and bodies with folds, repeated fields, whitespace runs and every kind of line end. */
function messageGenerator(seed: number) {
  const { next, pick } = seeded(seed);
  const words = ['a', 'Hello', ' ', '   ', '\t', ' \t ', '=?UTF-8?Q?=C3=A9?=', '<x@y>', ';', ':'];
  const value = () => Array.from({ length: 1 + Math.floor(next() * 8) }, () => pick(words)).join('') + (next() < 0.3 ? `\r\n${pick([' ', '\t', '  '])}folded${pick(['', ' ', '\t'])}` : '');
  const names = ['From', 'To', 'Subject', 'Date', 'Message-ID', 'List-Unsubscribe', 'List-Unsubscribe-Post', 'X-Other', 'subject', 'Content-Type'];
  const lineEnd = () => pick(['\r\n', '\r\n', '\n']);
  const body = () => Array.from({ length: Math.floor(next() * 8) }, () => Array.from({ length: Math.floor(next() * 5) }, () => pick(['text', ' ', '  ', '\t', 'é', '\r', '.'])).join('') + lineEnd()).join('') + pick(['', 'tail', '\r\n\r\n', ' \r\n']);
  const message = () => {
    // every message has a From field (RFC 5322 requires it, RFC 6376 requires it signed)
    const fields = ['From', ...Array.from({ length: Math.floor(next() * 9) }, () => pick(names))].map((name) => `${name}${pick([':', ': ', ' : ', ':\t'])}${value()}${lineEnd()}`);
    return Buffer.from(`${fields.join('')}${lineEnd()}${body()}`, 'latin1');
  };
  return { message };
}

const date = new Date('2026-11-24T12:00:00Z');
const compiled = (options: MailComposerOptions) => new MailComposer({ ...options, newline: 'windows' }).compile();

describe('singlePart', () => {
  it('writes a one-part message with the same bytes as the composer streams them, for 300 random messages', async () => {
    const g = generator(20261124);
    for (let i = 0; i < 300; i++) {
      const options: MailComposerOptions = {
        date,
        messageId: `<m${i}@acme.test>`,
        from: g.pick(['news@acme.test', { name: g.text(4), address: 'news@acme.test' }]),
        to: g.pick(['reader@example.com', `"${g.text(3).replace(/["\r\n\\]/g, '')}" <reader@example.com>`]),
        subject: g.text(12),
        headers: g.next() < 0.5 ? { 'List-Unsubscribe': '<https://acme.test/u/1>', 'X-Campaign': g.text(6) } : {},
        textEncoding: g.pick([undefined, 'base64', 'quoted-printable'] as const),
        ...(g.next() < 0.8 ? { html: g.text(60) } : { text: g.text(60) }),
      };
      const fast = builder.singlePart(compiled(options));
      // every one of them is one text part, so none falls back to the streams
      expect(fast).not.toBeNull();
      expect(fast!.toString('latin1')).toBe((await compiled(options).build()).toString('latin1'));
    }
  });

  it('leaves attachments, alternatives and text over 64 KiB to the composer streams', async () => {
    expect(builder.singlePart(compiled({ from: 'a@acme.test', to: 'b@example.com', subject: 's', html: '<p>x</p>', attachments: [{ filename: 'a.txt', content: 'hello' }] }))).toBeNull();
    expect(builder.singlePart(compiled({ from: 'a@acme.test', to: 'b@example.com', subject: 's', html: '<p>x</p>', text: 'x' }))).toBeNull();
    const long = { date, messageId: '<long@acme.test>', from: 'a@acme.test', to: 'b@example.com', subject: 's', html: `<p>${'word é '.repeat(12_000)}</p>` };
    expect(builder.singlePart(compiled(long))).toBeNull();
    expect((await builder.build(long, null)).raw.toString('latin1')).toBe((await compiled(long).build()).toString('latin1'));
  });
});

describe('signDkim', () => {
  it('writes the same signed message as nodemailer’s DKIM signer, for 200 random messages', async () => {
    const g = messageGenerator(424242);
    for (let i = 0; i < 200; i++) {
      const message = g.message();
      expect(builder.signDkim(message, key).toString('latin1')).toBe(await nodemailerSigned(message));
    }
  });

  it('signs the last instance of a repeated field and the fields of the list it has, and verifies against the published key', async () => {
    const message = Buffer.from(
      'From: News <news@acme.test>\r\nSubject: first\r\nSubject:  second \r\nX-Other: not signed\r\nList-Unsubscribe: <https://acme.test/u/1>\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n\r\nHello  \r\n\r\n\r\n',
    );
    const signed = builder.signDkim(message, key).toString('latin1');
    const tags = verifyDkim(signed, published);
    expect(tags).toMatchObject({ v: '1', a: 'rsa-sha256', c: 'relaxed/relaxed', d: 'acme.test', s: 'sel1', h: 'from:subject:list-unsubscribe:list-unsubscribe-post' });
    // the signature breaks when a signed field, or the body, changes; an unsigned field may change
    expect(() => verifyDkim(signed.replace('Subject:  second', 'Subject: third'), published)).toThrow(/does not verify/);
    expect(() => verifyDkim(signed.replace('Hello', 'Hallo'), published)).toThrow(/body hash/);
    expect(() => verifyDkim(signed.replace('not signed', 'changed'), published)).not.toThrow();
  });

  it('hashes an empty body as the empty string (RFC 6376 §3.4.4)', async () => {
    const signed = builder.signDkim(Buffer.from('From: a@acme.test\r\n\r\n'), key).toString('latin1');
    expect(verifyDkim(signed, published).bh).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});
