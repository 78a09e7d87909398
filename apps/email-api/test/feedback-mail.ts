/** Delivery status notifications (RFC 3464) and feedback reports (RFC 5965) as remote mail servers write them, for tests. */

export interface DsnOptions {
  /** The bounced recipient. */
  recipient: string;
  /** Default `failed`. */
  action?: string;
  /** Default `5.1.1`; null leaves the Status field out. */
  status?: string | null;
  diagnostic?: string;
  /** Message-ID of the quoted original mail. */
  originalMessageId?: string;
  /** The report's own Message-ID. */
  messageId?: string;
  boundary?: string;
  /** base64-encode the delivery-status part. */
  base64?: boolean;
}

export function dsnMessage(o: DsnOptions): string {
  const b = o.boundary ?? 'dsn-boundary-1';
  let status = [
    'Reporting-MTA: dns; mx.remote.example',
    'Arrival-Date: Sat, 28 Nov 2026 08:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${o.recipient}`,
    `Action: ${o.action ?? 'failed'}`,
    ...(o.status === null ? [] : [`Status: ${o.status ?? '5.1.1'}`]),
    'Remote-MTA: dns; mx.remote.example',
    `Diagnostic-Code: smtp; ${o.diagnostic ?? '550 5.1.1 <' + o.recipient + '>: Recipient address rejected: User unknown'}`,
    '',
  ].join('\r\n');
  if (o.base64) status = Buffer.from(status).toString('base64').replace(/(.{76})/g, '$1\r\n');
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.remote.example>',
    'To: undisclosed-recipients:;',
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${o.messageId ?? 'dsn.1@mx.remote.example'}>`,
    'Date: Sat, 28 Nov 2026 08:00:01 +0000',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary="${b}"`,
    '',
    'This is a MIME-encapsulated message.',
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'I am sorry to inform you that your message could not be delivered.',
    '',
    `--${b}`,
    'Content-Type: message/delivery-status',
    ...(o.base64 ? ['Content-Transfer-Encoding: base64'] : []),
    '',
    status,
    `--${b}`,
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: <${o.originalMessageId ?? 'unknown@example.com'}>`,
    'From: sender@example.com',
    `To: ${o.recipient}`,
    'Subject: Hello',
    '',
    `--${b}--`,
    '',
  ].join('\r\n');
}

export interface ArfOptions {
  /** The complaining recipient. */
  recipient: string;
  /** The reported mail's return path (Original-Mail-From). */
  originalMailFrom?: string;
  originalMessageId?: string;
  feedbackType?: string;
  messageId?: string;
}

export function arfMessage(o: ArfOptions): string {
  const b = 'arf-boundary-1';
  return [
    'From: <staff@hotmail.example>',
    'To: <abuse@example.com>',
    'Subject: FW: Earn money',
    `Message-ID: <${o.messageId ?? 'arf.1@hotmail.example'}>`,
    'Date: Sat, 28 Nov 2026 08:10:00 +0000',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset="US-ASCII"',
    'Content-Transfer-Encoding: 7bit',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1.',
    '',
    `--${b}`,
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
    'User-Agent: SomeGenerator/1.0',
    'Version: 1',
    ...(o.originalMailFrom ? [`Original-Mail-From: <${o.originalMailFrom}>`] : []),
    `Original-Rcpt-To: <${o.recipient}>`,
    'Arrival-Date: Sat, 28 Nov 2026 08:05:00 +0000',
    'Reporting-MTA: dns; mail.hotmail.example',
    'Source-IP: 192.0.2.1',
    '',
    `--${b}`,
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    'From: <sender@example.com>',
    `To: <${o.recipient}>`,
    'Subject: Earn money',
    `Message-ID: <${o.originalMessageId ?? 'x@example.com'}>`,
    '',
    'Spam Spam Spam',
    '',
    `--${b}--`,
    '',
  ].join('\r\n');
}
