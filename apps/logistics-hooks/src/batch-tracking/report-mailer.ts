import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { isEmail } from 'class-validator';
import nodemailer, { type Transporter } from 'nodemailer';
import { LogisticsHooksConfig } from '../config';
import type { EmailReportDto } from './dto/email-report.dto';
import { renderBatchReport } from './report-html';

const MAX_RECIPIENTS = 20;

export type ReportOutcome =
  | { sent: false; html: string; subject: string }
  | { sent: true; message_id: string; accepted: string[]; rejected: string[]; subject: string; from: string };

/** Parses a comma-separated address list; throws 422 naming the field and the bad entry. */
export function addressList(field: string, value: string | undefined): string[] {
  const list = (value ?? '').split(',').map((a) => a.trim()).filter(Boolean);
  for (const a of list) {
    if (!isEmail(a) || /[\r\n]/.test(a)) {
      throw new ApiError(422, 'VALIDATION_ERROR', `${field} holds "${a.slice(0, 80)}", which is not an email address`, {
        errors: [{ field, message: `"${a.slice(0, 80)}" is not an email address`, code: 'isEmail' }],
        suggestion: `Send ${field} as comma-separated addresses such as ops@client.example.`,
      });
    }
  }
  return list;
}

/** Whether `from` is permitted by the allow-list entries (exact addresses or `@domain`, case-insensitive). */
export function senderAllowed(from: string, allowed: string[]): boolean {
  const f = from.toLowerCase();
  return allowed.some((entry) => {
    const e = entry.trim().toLowerCase();
    return e.startsWith('@') ? f.endsWith(e) && f.indexOf('@') === f.length - e.length : e === f;
  });
}

/**
 * The email report: rendered from the batch output, sent through SMTP_URL (nodemailer) from an
 * allowed sender, or returned as HTML when `to` is empty.
 */
@Injectable()
export class ReportMailer implements OnApplicationShutdown {
  private readonly logger = new Logger(ReportMailer.name);
  private readonly transporter: Transporter | null;
  private readonly allowed: string[];

  constructor(@Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig) {
    this.transporter = config.SMTP_URL ? nodemailer.createTransport({ url: config.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }) : null;
    this.allowed = (config.REPORT_FROM_ALLOWED ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  }

  async report(dto: EmailReportDto, now = new Date()): Promise<ReportOutcome> {
    const to = addressList('to', dto.to);
    const cc = addressList('cc', dto.cc);
    const totals = (dto.data.totals ?? {}) as Record<string, unknown>;
    const subject =
      dto.subject?.replace(/[\r\n]+/g, ' ').trim() ||
      `Fleet status: ${Number(totals.trucks) || 0} trucks, ${Number(totals.attention) || 0} need attention`;
    const html = renderBatchReport(dto.data, { title: subject, generatedAt: now });
    if (to.length === 0) return { sent: false, html, subject };
    if (to.length + cc.length > MAX_RECIPIENTS) {
      throw new ApiError(422, 'TOO_MANY_RECIPIENTS', `${to.length + cc.length} recipients; at most ${MAX_RECIPIENTS}`, { suggestion: 'Send the report to a list address instead.' });
    }
    const from = (dto.from ?? this.config.REPORT_FROM_DEFAULT ?? '').trim();
    if (!from || !isEmail(from) || !senderAllowed(from, this.allowed)) {
      throw new ApiError(403, 'SENDER_NOT_ALLOWED', from ? `${from.slice(0, 80)} may not send reports` : 'No sender: from is empty and REPORT_FROM_DEFAULT is not set', {
        suggestion: `Use a sender REPORT_FROM_ALLOWED permits (${this.allowed.join(', ') || 'none configured'}).`,
      });
    }
    if (!this.transporter) {
      throw new ApiError(503, 'SMTP_NOT_CONFIGURED', 'Reports cannot be sent: SMTP_URL is not set', { suggestion: 'Leave to empty to get the HTML, or ask an operator to set SMTP_URL.' });
    }
    try {
      const info = await this.transporter.sendMail({ from, to, cc: cc.length ? cc : undefined, subject, html });
      return { sent: true, message_id: info.messageId, accepted: (info.accepted as string[]).map(String), rejected: (info.rejected as string[]).map(String), subject, from };
    } catch (err) {
      this.logger.warn(`report mail failed: ${(err as Error).message}`);
      throw new ApiError(502, 'SMTP_FAILED', `The mail server refused the report: ${(err as Error).message.slice(0, 200)}`, { suggestion: 'Check the recipients and try again; nothing was sent.' });
    }
  }

  onApplicationShutdown(): void {
    this.transporter?.close();
  }
}
