import { bareAddress, decodeTransfer, field, fieldsOf, parseContentType, parseFields, splitEntity, splitMultipart, type HeaderField } from './mime';

/**
 * Reading delivery status notifications (RFC 3464) and feedback reports (RFC 5965, ARF): both are
 * `multipart/report` messages (RFC 6522) whose `report-type` says which, with a human part, a
 * machine-readable part of header-like fields and usually the original message (or its headers).
 * Pure functions over the received text.
 */

/** The message a report is about, from its `message/rfc822` or `text/rfc822-headers` part. */
export interface OriginalMessage {
  /** `Message-ID` without the angle brackets. */
  messageId?: string;
  headers: HeaderField[];
}

/** One recipient block of a DSN's `message/delivery-status` part. */
export interface DsnRecipient {
  /** `Final-Recipient: rfc822; <addr>`, lower-cased address. */
  finalRecipient: string;
  originalRecipient?: string;
  /** failed, delayed, delivered, relayed or expanded (lower-cased). */
  action: string;
  /** `class.subject.detail`, e.g. `5.1.1`; undefined when missing or not of that form. */
  status?: string;
  /** `Diagnostic-Code`, e.g. `smtp; 550 5.1.1 user unknown`. */
  diagnosticCode?: string;
  remoteMta?: string;
}

export interface DeliveryStatusReport {
  kind: 'delivery-status';
  reportingMta?: string;
  arrivalDate?: string;
  recipients: DsnRecipient[];
  original: OriginalMessage | null;
}

export interface FeedbackReport {
  kind: 'feedback-report';
  /** abuse, fraud, virus, other, not-spam, … (lower-cased). */
  feedbackType: string;
  userAgent?: string;
  version?: string;
  /** `Original-Mail-From`: the return path of the reported mail (lower-cased, no brackets). */
  originalMailFrom?: string;
  originalRcptTo: string[];
  arrivalDate?: string;
  reportedDomain?: string;
  sourceIp?: string;
  original: OriginalMessage | null;
}

export type ParsedReport =
  | DeliveryStatusReport
  | FeedbackReport
  /** Not a report at all (an auto-reply, a person writing back): nothing to record. */
  | { kind: 'not-a-report'; contentType: string }
  /** A report of a type this service does not read (e.g. `disposition-notification`). */
  | { kind: 'other-report'; reportType: string }
  /** Claims to be a DSN or ARF report but cannot be read: refused at SMTP time. */
  | { kind: 'malformed'; reason: string };

const MAX_DEPTH = 4;

/** Finds and reads the report in a received message. */
export function parseReport(raw: string): ParsedReport {
  const top = splitEntity(raw);
  if (!top.headers.length) return { kind: 'malformed', reason: 'the message has no header fields' };
  const report = findReport(top, 0);
  if (!report) return { kind: 'not-a-report', contentType: parseContentType(field(top.headers, 'content-type')).type };
  const reportType = (report.params['report-type'] ?? '').toLowerCase();
  if (reportType !== 'delivery-status' && reportType !== 'feedback-report') return { kind: 'other-report', reportType: reportType || '(none)' };
  const boundary = report.params.boundary;
  const parts = boundary ? splitMultipart(report.body, boundary) : null;
  if (!parts) return { kind: 'malformed', reason: 'the multipart/report body has no parts (missing or wrong boundary)' };
  const entities = parts.map(splitEntity);
  const typed = entities.map((e) => ({ ...e, ct: parseContentType(field(e.headers, 'content-type')) }));
  const original = originalOf(typed);
  if (reportType === 'delivery-status') {
    const status = typed.find((p) => p.ct.type === 'message/delivery-status' || p.ct.type === 'message/global-delivery-status');
    if (!status) return { kind: 'malformed', reason: 'a delivery-status report without a message/delivery-status part' };
    return readDeliveryStatus(decodeTransfer(status.body, field(status.headers, 'content-transfer-encoding')), original);
  }
  const feedback = typed.find((p) => p.ct.type === 'message/feedback-report');
  if (!feedback) return { kind: 'malformed', reason: 'a feedback-report without a message/feedback-report part' };
  return readFeedbackReport(decodeTransfer(feedback.body, field(feedback.headers, 'content-transfer-encoding')), original);
}

/** The multipart/report entity: the message itself, or a part of a multipart/mixed around it. */
function findReport(entity: { headers: HeaderField[]; body: string }, depth: number): { params: Record<string, string>; body: string } | null {
  const ct = parseContentType(field(entity.headers, 'content-type'));
  if (ct.type === 'multipart/report') return { params: ct.params, body: entity.body };
  if (!ct.type.startsWith('multipart/') || depth >= MAX_DEPTH || !ct.params.boundary) return null;
  for (const part of splitMultipart(entity.body, ct.params.boundary) ?? []) {
    const found = findReport(splitEntity(part), depth + 1);
    if (found) return found;
  }
  return null;
}

function originalOf(parts: Array<{ headers: HeaderField[]; body: string; ct: { type: string } }>): OriginalMessage | null {
  const part = parts.find((p) => p.ct.type === 'message/rfc822' || p.ct.type === 'text/rfc822-headers' || p.ct.type === 'message/global' || p.ct.type === 'message/global-headers');
  if (!part) return null;
  const text = decodeTransfer(part.body, field(part.headers, 'content-transfer-encoding'));
  // text/rfc822-headers is the header block alone; message/rfc822 a whole message.
  const headers = part.ct.type.endsWith('headers') ? parseFields(text.replace(/\r\n/g, '\n').split('\n\n')[0]) : splitEntity(text).headers;
  const id = field(headers, 'message-id');
  return { messageId: id ? id.replace(/^\s*<|>\s*$/g, '').trim() : undefined, headers };
}

/** Blocks of fields separated by blank lines: the per-message block, then one per recipient. */
function blocks(text: string): HeaderField[][] {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((b) => parseFields(b))
    .filter((b) => b.length > 0);
}

/** `rfc822; bob@example.net` → `bob@example.net` (lower-cased). */
function typedAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const semi = value.indexOf(';');
  const address = bareAddress(semi >= 0 ? value.slice(semi + 1) : value);
  return address || undefined;
}

export function readDeliveryStatus(text: string, original: OriginalMessage | null = null): DeliveryStatusReport | { kind: 'malformed'; reason: string } {
  const all = blocks(text);
  const perMessage = all.find((b) => !field(b, 'final-recipient')) ?? [];
  const recipients: DsnRecipient[] = [];
  for (const b of all) {
    const finalRecipient = typedAddress(field(b, 'final-recipient'));
    const action = field(b, 'action')?.toLowerCase().split(/[\s(]/)[0];
    if (!finalRecipient || !action) continue;
    const status = /^([245])\.(\d{1,3})\.(\d{1,3})/.exec(field(b, 'status') ?? '');
    recipients.push({
      finalRecipient,
      originalRecipient: typedAddress(field(b, 'original-recipient')),
      action,
      status: status ? `${status[1]}.${Number(status[2])}.${Number(status[3])}` : undefined,
      diagnosticCode: field(b, 'diagnostic-code'),
      remoteMta: field(b, 'remote-mta'),
    });
  }
  if (!recipients.length) return { kind: 'malformed', reason: 'the delivery-status part names no recipient with Final-Recipient and Action' };
  return { kind: 'delivery-status', reportingMta: field(perMessage, 'reporting-mta'), arrivalDate: field(perMessage, 'arrival-date'), recipients, original };
}

export function readFeedbackReport(text: string, original: OriginalMessage | null = null): FeedbackReport | { kind: 'malformed'; reason: string } {
  const fields = blocks(text).flat();
  const feedbackType = field(fields, 'feedback-type')?.toLowerCase().trim();
  if (!feedbackType) return { kind: 'malformed', reason: 'the feedback-report part has no Feedback-Type' };
  const mailFrom = field(fields, 'original-mail-from');
  return {
    kind: 'feedback-report',
    feedbackType,
    userAgent: field(fields, 'user-agent'),
    version: field(fields, 'version'),
    originalMailFrom: mailFrom !== undefined ? bareAddress(mailFrom) || undefined : undefined,
    originalRcptTo: fieldsOf(fields, 'original-rcpt-to').map((v) => bareAddress(v)).filter(Boolean),
    arrivalDate: field(fields, 'arrival-date') ?? field(fields, 'received-date'),
    reportedDomain: field(fields, 'reported-domain'),
    sourceIp: field(fields, 'source-ip'),
    original,
  };
}

/** What a DSN says about one recipient. */
export type DsnOutcome = 'hard' | 'soft' | 'delivered' | 'delayed';

/**
 * `Action: failed` with a permanent status (5.x.x) is a hard bounce, with a transient one (4.x.x) a
 * soft bounce; without a usable Status the Diagnostic-Code's reply code decides (5xx hard, else
 * soft). `delayed` is a warning that the mail is still being tried (not a bounce). `delivered`,
 * `relayed` and `expanded` are deliveries.
 */
export function dsnOutcome(r: DsnRecipient): DsnOutcome | null {
  switch (r.action) {
    case 'failed': {
      if (r.status) return r.status.startsWith('5.') ? 'hard' : 'soft';
      const code = /(?:^|;)\s*([245])\d\d(?:\s|$)/.exec(r.diagnosticCode ?? '');
      return code?.[1] === '5' ? 'hard' : 'soft';
    }
    case 'delayed':
      return 'delayed';
    case 'delivered':
    case 'relayed':
    case 'expanded':
      return 'delivered';
    default:
      return null;
  }
}
