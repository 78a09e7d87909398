import { arfMessage, dsnMessage } from '../../test/feedback-mail';
import { returnPathOf } from '../emails/verp';
import { feedbackEvents, feedbackKey, reportedMailIds } from './feedback';
import { decodeTransfer, parseContentType, splitMultipart } from './mime';
import { dsnOutcome, parseReport, readDeliveryStatus, readFeedbackReport, type DsnRecipient } from './reports';

const ID = 'eml_0123456789abcdefghij';
const ID2 = 'eml_abcdefghij0123456789';

describe('parseReport', () => {
  it.each([
    ['a hard bounce', dsnMessage({ recipient: 'Bob@Example.net' }), { kind: 'delivery-status', recipients: [{ finalRecipient: 'bob@example.net', action: 'failed', status: '5.1.1' }] }],
    ['a soft bounce', dsnMessage({ recipient: 'bob@example.net', status: '4.2.2', diagnostic: '452 4.2.2 mailbox full' }), { kind: 'delivery-status', recipients: [{ status: '4.2.2' }] }],
    ['a base64 delivery-status part', dsnMessage({ recipient: 'bob@example.net', base64: true }), { kind: 'delivery-status', recipients: [{ finalRecipient: 'bob@example.net', status: '5.1.1' }] }],
    ['a delivery report', dsnMessage({ recipient: 'bob@example.net', action: 'delivered', status: '2.0.0', diagnostic: '250 ok' }), { kind: 'delivery-status', recipients: [{ action: 'delivered' }] }],
    ['an abuse report', arfMessage({ recipient: 'bob@example.net', originalMailFrom: returnPathOf(ID, 'example.com') }), { kind: 'feedback-report', feedbackType: 'abuse', originalMailFrom: `bounces+${ID}@bounce.example.com`, originalRcptTo: ['bob@example.net'], sourceIp: '192.0.2.1', version: '1' }],
  ])('reads %s', (_name, raw, expected) => {
    expect(parseReport(raw)).toMatchObject(expected);
  });

  it('reads the original message id from text/rfc822-headers and message/rfc822', () => {
    expect(parseReport(dsnMessage({ recipient: 'a@b.example', originalMessageId: `${ID}@example.com` }))).toMatchObject({ original: { messageId: `${ID}@example.com` } });
    expect(parseReport(arfMessage({ recipient: 'a@b.example', originalMessageId: `${ID}@example.com` }))).toMatchObject({ original: { messageId: `${ID}@example.com` } });
  });

  it('finds a report inside multipart/mixed', () => {
    const inner = dsnMessage({ recipient: 'a@b.example' });
    const ct = /Content-Type: (multipart\/report;[^\r]*\r\n\t[^\r]*)/.exec(inner)![1];
    const body = inner.slice(inner.indexOf('\r\n\r\n') + 4);
    const raw = ['From: x@y.example', 'Content-Type: multipart/mixed; boundary=outer', '', '--outer', `Content-Type: ${ct}`, '', body, '--outer--', ''].join('\r\n');
    expect(parseReport(raw)).toMatchObject({ kind: 'delivery-status' });
  });

  it.each([
    ['a plain auto-reply', 'From: a@b.example\r\nSubject: Out of office\r\n\r\nI am away.', { kind: 'not-a-report', contentType: 'text/plain' }],
    ['a read receipt', 'From: a@b.example\r\nContent-Type: multipart/report; report-type=disposition-notification; boundary=x\r\n\r\n--x\r\n\r\nhi\r\n--x--', { kind: 'other-report', reportType: 'disposition-notification' }],
    ['no header at all', '\r\njust a body', { kind: 'malformed' }],
    ['a report without its boundary', 'From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status\r\n\r\nbody', { kind: 'malformed' }],
    ['a report whose boundary never appears', 'From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=zz\r\n\r\nbody', { kind: 'malformed' }],
    ['a DSN without the status part', 'From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nfailed\r\n--x--', { kind: 'malformed' }],
    ['a DSN naming no recipient', 'From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; x\r\n--x--', { kind: 'malformed' }],
    ['an ARF without Feedback-Type', 'From: a@b.example\r\nContent-Type: multipart/report; report-type=feedback-report; boundary=x\r\n\r\n--x\r\nContent-Type: message/feedback-report\r\n\r\nVersion: 1\r\n--x--', { kind: 'malformed' }],
  ])('classifies %s', (_name, raw, expected) => {
    expect(parseReport(raw)).toMatchObject(expected);
  });
});

describe('readDeliveryStatus / readFeedbackReport', () => {
  it('reads several recipient blocks, folded fields and odd spacing', () => {
    const r = readDeliveryStatus(
      'Reporting-MTA: dns;mx.example\n\nFinal-Recipient: RFC822;<A@x.example>\nAction: Failed (permanent)\nStatus: 5.01.001 (bad)\nDiagnostic-Code: smtp; 550\n  user unknown\n\nFinal-Recipient: rfc822; b@x.example\nOriginal-Recipient: rfc822;c@y.example\nAction: delayed\nStatus: 4.4.7\n',
    );
    expect(r).toMatchObject({
      kind: 'delivery-status',
      reportingMta: 'dns;mx.example',
      recipients: [
        { finalRecipient: 'a@x.example', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 user unknown' },
        { finalRecipient: 'b@x.example', originalRecipient: 'c@y.example', action: 'delayed', status: '4.4.7' },
      ],
    });
  });

  it('reads an ARF with several Original-Rcpt-To and an empty Original-Mail-From', () => {
    expect(readFeedbackReport('Feedback-Type: Fraud\nOriginal-Mail-From: <>\nOriginal-Rcpt-To: a@x.example\nOriginal-Rcpt-To: <B@x.example>\n')).toMatchObject({
      feedbackType: 'fraud',
      originalMailFrom: undefined,
      originalRcptTo: ['a@x.example', 'b@x.example'],
    });
  });
});

describe('dsnOutcome', () => {
  const r = (o: Partial<DsnRecipient>): DsnRecipient => ({ finalRecipient: 'a@b.example', action: 'failed', ...o });
  it.each<[Partial<DsnRecipient>, string | null]>([
    [{ status: '5.1.1' }, 'hard'],
    [{ status: '5.7.1' }, 'hard'],
    [{ status: '4.2.2' }, 'soft'],
    [{ diagnosticCode: 'smtp; 550 no such user' }, 'hard'],
    [{ diagnosticCode: 'smtp; 421 try later' }, 'soft'],
    [{}, 'soft'],
    [{ action: 'delayed', status: '4.4.7' }, 'delayed'],
    [{ action: 'delivered', status: '2.0.0' }, 'delivered'],
    [{ action: 'relayed' }, 'delivered'],
    [{ action: 'expanded' }, 'delivered'],
    [{ action: 'whatever' }, null],
  ])('%j → %s', (o, expected) => {
    expect(dsnOutcome(r(o))).toBe(expected);
  });
});

describe('feedbackEvents', () => {
  const mail = { emailId: ID, recipient: 'bob@example.net' };

  it('finds the mails by envelope, then Original-Mail-From, then the quoted Message-ID', () => {
    const arf = parseReport(arfMessage({ recipient: 'bob@example.net', originalMailFrom: returnPathOf(ID2, 'x.example'), originalMessageId: `${ID}@x.example` }));
    expect(reportedMailIds(arf, [returnPathOf(ID, 'x.example'), 'other@x.example'])).toEqual([ID]);
    expect(reportedMailIds(arf, ['abuse@x.example'])).toEqual([ID2]);
    const dsn = parseReport(dsnMessage({ recipient: 'bob@example.net', originalMessageId: `${ID}@x.example` }));
    expect(reportedMailIds(dsn, [])).toEqual([ID]);
    expect(reportedMailIds(parseReport(dsnMessage({ recipient: 'b@x.example' })), [])).toEqual([]);
    expect(reportedMailIds({ kind: 'not-a-report', contentType: 'text/plain' }, [])).toEqual([]);
  });

  it.each([
    ['hard bounce', dsnMessage({ recipient: 'bob@example.net' }), [{ type: 'bounce', bounceType: 'hard', idempotencyKey: feedbackKey(ID, 'bounce', 'hard'), source: 'smtp-dsn' }]],
    ['soft bounce', dsnMessage({ recipient: 'bob@example.net', status: '4.2.2' }), [{ type: 'bounce', bounceType: 'soft', idempotencyKey: `fb:${ID}:bounce-soft` }]],
    ['delivery', dsnMessage({ recipient: 'bob@example.net', action: 'delivered', status: '2.0.0' }), [{ type: 'delivery', idempotencyKey: `fb:${ID}:delivery` }]],
    ['delay', dsnMessage({ recipient: 'bob@example.net', action: 'delayed', status: '4.4.7' }), []],
    ['a forwarded address (one mail, one block)', dsnMessage({ recipient: 'bob@forwarded.example' }), [{ type: 'bounce', recipient: 'bob@example.net' }]],
    ['complaint', arfMessage({ recipient: 'bob@example.net' }), [{ type: 'complaint', idempotencyKey: `fb:${ID}:complaint`, source: 'smtp-arf', data: { feedbackType: 'abuse' } }]],
    ['not-spam feedback', arfMessage({ recipient: 'bob@example.net', feedbackType: 'not-spam' }), []],
  ])('%s', (_name, raw, expected) => {
    expect(feedbackEvents(parseReport(raw), [mail])).toMatchObject(expected);
  });

  it('keeps a DSN block for the mail whose recipient it names, once', () => {
    const report = readDeliveryStatus('Final-Recipient: rfc822; b@x.example\nAction: failed\nStatus: 5.0.0\n\nFinal-Recipient: rfc822; c@x.example\nAction: failed\nStatus: 5.0.0\n\nFinal-Recipient: rfc822; c@x.example\nAction: failed\nStatus: 5.1.1\n');
    const events = feedbackEvents(report as never, [{ emailId: ID, recipient: 'c@x.example' }, { emailId: ID2, recipient: 'z@x.example' }]);
    expect(events).toEqual([expect.objectContaining({ emailId: ID, recipient: 'c@x.example', bounceType: 'hard' })]);
  });
});

describe('mime', () => {
  it('reads quoted parameters and undoes transfer encodings', () => {
    expect(parseContentType('Multipart/Report; report-type="delivery-status"; boundary="a;b\\"c"')).toEqual({ type: 'multipart/report', params: { 'report-type': 'delivery-status', boundary: 'a;b"c' } });
    expect(parseContentType(undefined).type).toBe('text/plain');
    expect(decodeTransfer('Status: 5=2E1=2E1=\r\n done', 'quoted-printable')).toBe('Status: 5.1.1 done');
    expect(decodeTransfer(Buffer.from('héllo').toString('base64'), 'BASE64')).toBe('héllo');
    expect(splitMultipart('pre\n--b\nA\n--b \nB\n--b--\nepilogue', 'b')).toEqual(['A', 'B']);
  });
});
