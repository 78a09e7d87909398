import { generateKeyPairSync, createSign, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSesEvent, sesFeedbackEvents } from './ses-events';
import { snsStringToSign, snsUrlAllowed, verifySnsSignature, type SnsEnvelope } from './sns-signature';
import { sesEvent } from '../../test/fake-sns';

const DEFAULT_HOSTS = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;
const ID = 'eml_0123456789abcdefghij';

describe('SNS signatures', () => {
  let dir: string;
  let cert: X509Certificate;
  let key: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sns-sig-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '1', '-subj', '/CN=sns.test'], { cwd: dir, stdio: 'pipe' });
    cert = new X509Certificate(readFileSync(join(dir, 'c.pem')));
    key = readFileSync(join(dir, 'k.pem'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const notification: SnsEnvelope = { Type: 'Notification', MessageId: 'm-1', TopicArn: 'arn:aws:sns:us-east-1:123456789012:t', Message: '{"a":1}', Timestamp: '2026-11-28T08:00:00.000Z' };
  const confirmation: SnsEnvelope = { ...notification, Type: 'SubscriptionConfirmation', SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription', Token: 'tok' };
  const signed = (m: SnsEnvelope, version: '1' | '2', k = key) => ({ ...m, SignatureVersion: version, Signature: createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(snsStringToSign(m)).sign(k, 'base64') });

  it('builds the canonical strings in SNS order', () => {
    expect(snsStringToSign(notification)).toBe('Message\n{"a":1}\nMessageId\nm-1\nTimestamp\n2026-11-28T08:00:00.000Z\nTopicArn\narn:aws:sns:us-east-1:123456789012:t\nType\nNotification\n');
    expect(snsStringToSign({ ...notification, Subject: 'S' })).toContain('MessageId\nm-1\nSubject\nS\nTimestamp');
    expect(snsStringToSign(confirmation)).toBe(
      'Message\n{"a":1}\nMessageId\nm-1\nSubscribeURL\nhttps://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription\nTimestamp\n2026-11-28T08:00:00.000Z\nToken\ntok\nTopicArn\narn:aws:sns:us-east-1:123456789012:t\nType\nSubscriptionConfirmation\n',
    );
    expect(snsStringToSign({ ...confirmation, Token: undefined })).toBe('');
  });

  it.each(['1', '2'] as const)('verifies SignatureVersion %s and refuses any change', (version) => {
    expect(verifySnsSignature(signed(notification, version), cert)).toBe(true);
    expect(verifySnsSignature(signed(confirmation, version), cert)).toBe(true);
    expect(verifySnsSignature({ ...signed(notification, version), Message: '{"a":2}' }, cert)).toBe(false);
    expect(verifySnsSignature({ ...signed(notification, version), SignatureVersion: version === '1' ? '2' : '1' }, cert)).toBe(false);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(verifySnsSignature(signed(notification, version, other), cert)).toBe(false);
  });

  it('refuses unsigned, unknown versions and garbage signatures', () => {
    expect(verifySnsSignature(notification, cert)).toBe(false);
    expect(verifySnsSignature({ ...signed(notification, '1'), SignatureVersion: '3' }, cert)).toBe(false);
    expect(verifySnsSignature({ ...notification, SignatureVersion: '1', Signature: '!!!' }, cert)).toBe(false);
  });

  it.each<[string | undefined, 'certificate' | 'subscribe', boolean]>([
    ['https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem', 'certificate', true],
    ['https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem', 'certificate', true],
    ['https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=x', 'subscribe', true],
    ['http://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem', 'certificate', false],
    ['https://sns.us-east-1.amazonaws.com.evil.test/x.pem', 'certificate', false],
    ['https://evil.test/sns.us-east-1.amazonaws.com/x.pem', 'certificate', false],
    ['https://user:pw@sns.us-east-1.amazonaws.com/x.pem', 'certificate', false],
    ['https://sns.us-east-1.amazonaws.com/x.txt', 'certificate', false],
    ['https://s3.amazonaws.com/x.pem', 'certificate', false],
    ['not a url', 'certificate', false],
    [undefined, 'subscribe', false],
  ])('%s (%s) → %s', (url, kind, expected) => {
    expect(snsUrlAllowed(url, DEFAULT_HOSTS, kind)).toBe(expected);
  });
});

describe('SES events', () => {
  it.each([
    ['a permanent bounce', sesEvent('Bounce', 'ses-1', 'Bob@Example.net'), { type: 'Bounce', providerMessageId: 'ses-1', outcomes: [{ type: 'bounce', bounceType: 'hard', recipient: 'bob@example.net' }] }],
    ['a transient bounce', sesEvent('Bounce', 'ses-1', 'bob@example.net', 'Transient'), { outcomes: [{ type: 'bounce', bounceType: 'soft' }] }],
    ['a complaint', sesEvent('Complaint', 'ses-2', 'bob@example.net'), { type: 'Complaint', outcomes: [{ type: 'complaint', recipient: 'bob@example.net' }] }],
    ['a delivery', sesEvent('Delivery', 'ses-3', 'bob@example.net'), { type: 'Delivery', outcomes: [{ type: 'delivery' }] }],
    ['event publishing (eventType)', { eventType: 'Bounce', mail: { messageId: 'ses-4' }, bounce: { bounceType: 'Undetermined', bouncedRecipients: [{ emailAddress: 'a@b.example' }] } }, { type: 'Bounce', outcomes: [{ bounceType: 'soft' }] }],
    ['an open (not recorded from SES)', { eventType: 'Open', mail: { messageId: 'ses-5' } }, { type: 'Open', outcomes: [] }],
    ['a not-spam complaint', { notificationType: 'Complaint', mail: { messageId: 'x' }, complaint: { complaintFeedbackType: 'not-spam', complainedRecipients: [{ emailAddress: 'a@b.example' }] } }, { outcomes: [] }],
  ])('reads %s', (_name, event, expected) => {
    expect(readSesEvent(JSON.stringify(event))).toMatchObject(expected);
  });

  it('refuses what is no JSON object', () => {
    expect(readSesEvent('nope')).toBeNull();
    expect(readSesEvent('[1]')).toBeNull();
    expect(readSesEvent('{"bounce": 3}')).toMatchObject({ type: '', providerMessageId: null, outcomes: [] });
  });

  it('keys SES events as the SMTP reports are, per mail', () => {
    const summary = readSesEvent(JSON.stringify(sesEvent('Bounce', 'ses-1', 'bob@example.net')))!;
    expect(sesFeedbackEvents(summary, { emailId: ID, recipient: 'bob@example.net' }, 'sns-1')).toEqual([
      expect.objectContaining({ type: 'bounce', bounceType: 'hard', emailId: ID, idempotencyKey: `fb:${ID}:bounce-hard`, source: 'ses', data: expect.objectContaining({ snsMessageId: 'sns-1' }) }),
    ]);
    // SES spelling the only recipient otherwise still names the mail's recipient
    expect(sesFeedbackEvents(summary, { emailId: ID, recipient: 'robert@example.net' }, 'sns-1')).toEqual([expect.objectContaining({ recipient: 'robert@example.net' })]);
  });
});
