import { createVerify, type X509Certificate } from 'node:crypto';

/**
 * Amazon SNS message signatures: SNS signs the canonical string of a message with the private key
 * of the certificate at `SigningCertURL`, RSA with SHA-1 (`SignatureVersion` 1) or SHA-256 (2).
 * Pure functions; the certificate is fetched by SnsClient.
 */

/** The fields of an SNS message that take part in the signature (as SNS posts them). */
export interface SnsEnvelope {
  Type: string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  Subject?: string | null;
  SubscribeURL?: string;
  Token?: string;
  SignatureVersion?: string;
  Signature?: string;
  SigningCertURL?: string;
}

const NOTIFICATION_FIELDS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const;
const CONFIRMATION_FIELDS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'] as const;

/**
 * The string SNS signs: `name\nvalue\n` for each field in a fixed order — a Notification's Message,
 * MessageId, Subject (only when present), Timestamp, TopicArn, Type; a SubscriptionConfirmation's or
 * UnsubscribeConfirmation's Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type.
 */
export function snsStringToSign(m: SnsEnvelope): string {
  const fields = m.Type === 'Notification' ? NOTIFICATION_FIELDS : CONFIRMATION_FIELDS;
  let out = '';
  for (const name of fields) {
    const value = m[name];
    if (value === undefined || value === null) {
      if (name === 'Subject') continue;
      // A confirmation without SubscribeURL or Token cannot have been signed by SNS.
      return '';
    }
    out += `${name}\n${value}\n`;
  }
  return out;
}

/** `1` → RSA-SHA1, `2` → RSA-SHA256, anything else null. */
export function snsSignatureAlgorithm(version: string | undefined): 'RSA-SHA1' | 'RSA-SHA256' | null {
  return version === '1' ? 'RSA-SHA1' : version === '2' ? 'RSA-SHA256' : null;
}

/** Whether the message's Signature verifies with the certificate's public key. */
export function verifySnsSignature(m: SnsEnvelope, certificate: X509Certificate): boolean {
  const algorithm = snsSignatureAlgorithm(m.SignatureVersion);
  const text = snsStringToSign(m);
  if (!algorithm || !text || !m.Signature || !/^[A-Za-z0-9+/=\s]+$/.test(m.Signature)) return false;
  try {
    return createVerify(algorithm).update(text, 'utf8').verify(certificate.publicKey, m.Signature, 'base64');
  } catch {
    return false;
  }
}

/**
 * Whether `url` may be fetched as an SNS endpoint: https, no credentials, a host matching `hostPattern`
 * (by default `sns.<region>.amazonaws.com`). A certificate URL must also end in `.pem`.
 */
export function snsUrlAllowed(url: string | undefined, hostPattern: RegExp, kind: 'certificate' | 'subscribe'): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || parsed.username || parsed.password) return false;
  if (!hostPattern.test(parsed.hostname.toLowerCase())) return false;
  return kind === 'subscribe' || parsed.pathname.endsWith('.pem');
}
