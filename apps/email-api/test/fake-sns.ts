import { execFileSync } from 'node:child_process';
import { createSign, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snsStringToSign, type SnsEnvelope } from '../src/webhooks/sns-signature';

/**
 * A fake Amazon SNS for the webhook tests: an https server on 127.0.0.1 serving its signing
 * certificate (`/SimpleNotificationService-<n>.pem`) and answering subscription confirmations
 * (`/confirm?Token=…`, recorded), with a self-signed RSA certificate made by the openssl command
 * (CN and subjectAltName 127.0.0.1) that is both the TLS certificate and the signing certificate.
 * `message()` builds SNS messages signed as SNS signs them (SignatureVersion 1 or 2); `forger`
 * signs with another key.
 */
export interface FakeSns {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  certUrl: string;
  /** PEM file of the certificate: SNS_TLS_CA_FILE. */
  caFile: string;
  /** How often the certificate was downloaded. */
  readonly certificateDownloads: number;
  /** Tokens of the confirmed subscriptions. */
  readonly confirmations: string[];
  notification(topicArn: string, message: unknown, opts?: { version?: '1' | '2'; messageId?: string; subject?: string; forged?: boolean }): Record<string, string>;
  subscriptionConfirmation(topicArn: string, opts?: { version?: '1' | '2' }): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeSns(): Promise<FakeSns> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-sns-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
  ssl('genrsa', '-out', 'forger.pem', '2048');
  const key = readFileSync(join(dir, 'key.pem'), 'utf8');
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const forgerKey = readFileSync(join(dir, 'forger.pem'), 'utf8');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, cert);
  let downloads = 0;
  const confirmations: string[] = [];
  const server: Server = createServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/SimpleNotificationService-test.pem') {
      downloads++;
      res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(cert);
    } else if (req.method === 'GET' && url.pathname === '/confirm' && url.searchParams.get('Action') === 'ConfirmSubscription') {
      confirmations.push(url.searchParams.get('Token') ?? '');
      res.writeHead(200, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>arn</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>');
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const certUrl = `${origin}/SimpleNotificationService-test.pem`;

  const sign = (m: SnsEnvelope, version: '1' | '2', forged = false): Record<string, string> => {
    const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(snsStringToSign(m)).sign(forged ? forgerKey : key, 'base64');
    return { ...(m as unknown as Record<string, string>), SignatureVersion: version, Signature: signature, SigningCertURL: certUrl };
  };

  return {
    origin,
    certUrl,
    caFile,
    get certificateDownloads() {
      return downloads;
    },
    confirmations,
    notification(topicArn, message, opts = {}) {
      const m: SnsEnvelope = {
        Type: 'Notification',
        MessageId: opts.messageId ?? randomUUID(),
        TopicArn: topicArn,
        ...(opts.subject ? { Subject: opts.subject } : {}),
        Message: typeof message === 'string' ? message : JSON.stringify(message),
        Timestamp: new Date().toISOString(),
      };
      return { ...sign(m, opts.version ?? '1', opts.forged), UnsubscribeURL: `${origin}/unsubscribe` };
    },
    subscriptionConfirmation(topicArn, opts = {}) {
      const token = randomUUID().replace(/-/g, '');
      const m: SnsEnvelope = {
        Type: 'SubscriptionConfirmation',
        MessageId: randomUUID(),
        Token: token,
        TopicArn: topicArn,
        Message: `You have chosen to subscribe to the topic ${topicArn}.`,
        SubscribeURL: `${origin}/confirm?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topicArn)}&Token=${token}`,
        Timestamp: new Date().toISOString(),
      };
      return sign(m, opts.version ?? '2');
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An SES event as SES publishes it to SNS (the Message of a Notification). */
export function sesEvent(type: 'Bounce' | 'Complaint' | 'Delivery', sesMessageId: string, recipient: string, bounceType: 'Permanent' | 'Transient' = 'Permanent'): Record<string, unknown> {
  const mail = { timestamp: new Date().toISOString(), source: 'hello@news.example', messageId: sesMessageId, destination: [recipient] };
  if (type === 'Bounce') {
    return { notificationType: 'Bounce', mail, bounce: { bounceType, bounceSubType: 'General', bouncedRecipients: [{ emailAddress: recipient, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }], timestamp: new Date().toISOString(), feedbackId: `fb-${sesMessageId}` } };
  }
  if (type === 'Complaint') return { notificationType: 'Complaint', mail, complaint: { complainedRecipients: [{ emailAddress: recipient }], complaintFeedbackType: 'abuse', timestamp: new Date().toISOString(), feedbackId: `fb-${sesMessageId}` } };
  return { notificationType: 'Delivery', mail, delivery: { recipients: [recipient], smtpResponse: '250 ok', reportingMTA: 'a8-1.smtp-out.amazonses.com', timestamp: new Date().toISOString() } };
}
