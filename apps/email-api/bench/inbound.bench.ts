/**
 * email-api benchmark scenario for `npm run bench`: the inbound SMTP receiver's delivery status
 * notifications per second — DSNs (RFC 3464, hard bounces) delivered over SMTP with nodemailer's
 * pooled transport to the return paths of sent mails, each parsed, matched to its mail, recorded as
 * a mail event and the address suppressed before the 250 answer — next to a bare `smtp-server` that
 * reads each message and answers 250 (the baseline: the same client, connections and messages, in
 * the same run). It throws unless every DSN landed as exactly one bounce and one suppression.
 *
 * The sent mails are written straight into `emails` (SENT, from `bench.example.test`). Uses
 * DATABASE_URL (a throwaway schema) or the embedded PostgreSQL.
 */
import { Database } from '@platform/database';
import { startBenchService, type BenchMeasurement } from '@platform/bench';
import { benchEnv, benchProject, benchTag, round } from './bench-api';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { newId } from '../src/common/ids';
import { SmtpReceiver } from '../src/inbound/smtp-receiver';
import { returnPathOf } from '../src/emails/verp';
import { emailApiService } from '../src/service';

export interface EmailInboundBenchOptions {
  /** DSNs delivered (default 2000). */
  messages?: number;
  /** SMTP connections of the client (default 8). */
  connections?: number;
  databaseUrl?: string;
}

const DOMAIN = 'bench.example.test';

function dsn(recipient: string, emailId: string, i: number): string {
  const b = `b${i}`;
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.remote.test>',
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn.${i}@mx.remote.test>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    `--${b}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.remote.test',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    'Status: 5.1.1',
    'Diagnostic-Code: smtp; 550 5.1.1 user unknown',
    '',
    `--${b}`,
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: <${emailId}@${DOMAIN}>`,
    `To: ${recipient}`,
    'Subject: News',
    '',
    `--${b}--`,
    '',
  ].join('\r\n');
}

/** Sends every message over `connections` pooled connections; answers the seconds from first to last answer. */
async function deliverAll(port: number, connections: number, mails: Array<{ to: string; raw: string }>): Promise<number> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections, maxMessages: Infinity });
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < mails.length) {
      const m = mails[next++];
      await transport.sendMail({ envelope: { from: '', to: [m.to] }, raw: m.raw });
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, lane));
    return (performance.now() - started) / 1000;
  } finally {
    transport.close();
  }
}

export async function runEmailInboundBench(opts: EmailInboundBenchOptions = {}): Promise<BenchMeasurement[]> {
  const count = opts.messages ?? 2000;
  const connections = opts.connections ?? 8;
  const bench = await startBenchService(emailApiService, { ...benchEnv(benchTag()), SOFT_BOUNCE_LIMIT: '3' }, opts.databaseUrl ?? process.env.DATABASE_URL);
  const bare = new SMTPServer({ authOptional: true, disabledCommands: ['AUTH', 'STARTTLS'], logger: false, onData: (stream, _s, cb) => stream.on('data', () => undefined).on('end', () => cb()) });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { service } = bench;
  try {
    const { project } = await benchProject(service.url);
    const db = service.app.get(Database);
    const mails = Array.from({ length: count }, (_, i) => ({ id: newId('eml'), to: `reader${i}@remote.test` }));
    await db.affected(
      `INSERT INTO ${db.table('emails')} (id, project_id, kind, source, status, to_email, from_email, subject, html, sent_at)
       SELECT m.id, $1, 'MARKETING', 'CAMPAIGN', 'SENT', m.to_email, 'news@${DOMAIN}', 'News', '<p>News</p>', now() FROM unnest($2::text[], $3::text[]) AS m(id, to_email)`,
      [project.id, mails.map((m) => m.id), mails.map((m) => m.to)],
    );
    const messages = mails.map((m, i) => ({ to: returnPathOf(m.id, DOMAIN), raw: dsn(m.to, m.id, i) }));
    const port = service.app.get(SmtpReceiver).port!;
    // warm-up on the bare server and the receiver (JIT, pools), not counted: the first 50 DSNs
    await deliverAll((bare.server.address() as AddressInfo).port, connections, messages.slice(0, 50));
    const baseline = await deliverAll((bare.server.address() as AddressInfo).port, connections, messages);
    await deliverAll(port, connections, messages.slice(0, 50));
    const seconds = await deliverAll(port, connections, messages.slice(50));
    const measured = count - 50;
    const counts = await db.one<{ bounces: number; suppressed: number }>(
      `SELECT (SELECT count(*)::int FROM ${db.table('mail_events')} WHERE project_id = $1 AND type = 'bounce') AS bounces,
              (SELECT count(*)::int FROM ${db.table('suppressions')} WHERE project_id = $1) AS suppressed`,
      [project.id],
    );
    if (counts!.bounces !== count || counts!.suppressed !== count) {
      throw new Error(`email-api inbound bench: ${count} DSNs delivered, ${counts!.bounces} bounces and ${counts!.suppressed} suppressions recorded`);
    }
    const perSecond = measured / seconds;
    const basePerSecond = count / baseline;
    return [
      {
        name: 'email-api: inbound DSNs/s',
        value: round(perSecond),
        unit: 'DSNs/s',
        baseline: round(basePerSecond),
        ratio: round(perSecond / basePerSecond, 3),
        detail: `${measured} hard-bounce DSNs over ${connections} pooled SMTP connections (nodemailer), each parsed, matched to its mail, recorded once and the address suppressed before the 250; every DSN landed (${counts!.bounces} bounces, ${counts!.suppressed} suppressions) — vs a bare smtp-server answering 250 to the same messages`,
      },
    ];
  } finally {
    await new Promise<void>((resolve) => bare.close(() => resolve()));
    await bench.close();
  }
}
