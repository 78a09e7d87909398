import { Injectable, Logger } from '@nestjs/common';
import { Database } from '@platform/database';
import { ApiError } from '@platform/errors';
import { EmailCampaignBatch } from '@platform/messaging';
import { Outbox } from '@platform/messaging';
import { EmailApiConfig } from '../config';
import { ContactsRepository } from '../contacts/contacts.repository';
import { DomainsService } from '../domains/domains.service';
import { EmailsRepository } from '../emails/emails.repository';
import { MailQueue } from '../emails/mail-queue.service';
import { NOT_SENT_NO_SMTP } from '../emails/email';
import { validateCondition, type Condition } from '../segments/condition';
import { SegmentsService } from '../segments/segments.service';
import { SegmentsRepository, type Audience } from '../segments/segments.repository';
import { TemplatesService } from '../templates/templates.service';
import { toCampaign, type Campaign, type CampaignFields, type CampaignRow, type CampaignStats } from './campaign';
import { CampaignMail } from './campaign-mail';
import { CampaignsRepository } from './campaigns.repository';

export const campaignNotFound = () => new ApiError(404, 'CAMPAIGN_NOT_FOUND', 'Campaign not found', { suggestion: 'List the project\'s campaigns with GET /campaigns.' });

/** Recipients written per fan-out message. */
export const FANOUT_BATCH = 500;

export interface CampaignInput {
  name: string;
  subject?: string;
  body?: string;
  from?: string;
  templateId?: string;
  audienceType: 'ALL' | 'SEGMENT' | 'FILTERED';
  segmentId?: string;
  audienceCondition?: Record<string, unknown>;
}

@Injectable()
export class CampaignsService {
  private readonly logger = new Logger('CampaignsService');

  constructor(
    private readonly db: Database,
    private readonly config: EmailApiConfig,
    private readonly campaigns: CampaignsRepository,
    private readonly domains: DomainsService,
    private readonly templates: TemplatesService,
    private readonly segments: SegmentsService,
    private readonly segmentRows: SegmentsRepository,
    private readonly emails: EmailsRepository,
    private readonly queue: MailQueue,
    private readonly contacts: ContactsRepository,
    private readonly mail: CampaignMail,
    private readonly outbox: Outbox,
  ) {}

  async list(projectId: string, page: number, pageSize: number, status?: CampaignRow['status']) {
    const { rows, total } = await this.campaigns.page(projectId, pageSize, (page - 1) * pageSize, status);
    return { data: rows.map(toCampaign), total, page, pageSize, totalPages: Math.ceil(total / pageSize) };
  }

  async row(projectId: string, id: string, lock = false): Promise<CampaignRow> {
    const row = await this.campaigns.findById(projectId, id, lock);
    if (!row) throw campaignNotFound();
    return row;
  }

  async get(projectId: string, id: string): Promise<Campaign> {
    return toCampaign(await this.row(projectId, id));
  }

  create(projectId: string, input: CampaignInput): Promise<Campaign> {
    return this.db.transaction(async () => {
      const { fields, domainId } = await this.resolve(projectId, input);
      return toCampaign(await this.campaigns.insert(projectId, domainId, fields));
    });
  }

  /** PUT: replaces every field; DRAFT only. */
  replace(projectId: string, id: string, input: CampaignInput): Promise<Campaign> {
    return this.db.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.status !== 'DRAFT') throw notDraft(row.status, 'replaced');
      const { fields, domainId } = await this.resolve(projectId, input);
      return toCampaign(await this.campaigns.replace(id, domainId, fields));
    });
  }

  duplicate(projectId: string, id: string): Promise<Campaign> {
    return this.db.transaction(async () => {
      const row = await this.row(projectId, id);
      const domain = await this.domains.requireVerifiedSender(projectId, row.from_email);
      const fields: CampaignFields = {
        name: `${row.name} (copy)`,
        subject: row.subject,
        body: row.body,
        from: row.from_email,
        templateId: row.template_id,
        audienceType: row.audience_type,
        segmentId: row.segment_id,
        audienceCondition: row.audience_condition,
      };
      if (fields.segmentId && !(await this.campaigns.segmentExists(projectId, fields.segmentId))) fields.segmentId = null;
      if (fields.audienceType === 'SEGMENT' && !fields.segmentId) fields.audienceType = 'ALL';
      return toCampaign(await this.campaigns.insert(projectId, domain.id, fields));
    });
  }

  remove(projectId: string, id: string): Promise<void> {
    return this.db.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.status === 'SENDING') {
        throw new ApiError(409, 'CAMPAIGN_SENDING', 'The campaign is sending', { suggestion: 'Cancel it with POST /campaigns/{id}/cancel first, then delete it.' });
      }
      await this.campaigns.delete(id);
    });
  }

  /** DRAFT → SENDING now, or SCHEDULED for a future `scheduledFor`; 400 without recipients. */
  async send(projectId: string, id: string, scheduledFor?: Date): Promise<Campaign> {
    const result = await this.db.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.status !== 'DRAFT') throw notDraft(row.status, 'sent');
      await this.domains.requireVerifiedSender(projectId, row.from_email);
      const recipients = await this.segmentRows.count(projectId, await this.audience(projectId, row, true));
      if (recipients === 0) {
        throw new ApiError(400, 'NO_RECIPIENTS', 'The campaign\'s audience has no subscribed contact', { suggestion: 'Choose another audience, or add contacts to the segment first.' });
      }
      if (scheduledFor && scheduledFor.getTime() > Date.now()) return this.campaigns.setStatus(id, 'SCHEDULED', scheduledFor);
      const started = await this.campaigns.setStatus(id, 'SENDING', null);
      await this.outbox.enqueue(EmailCampaignBatch, { projectId, campaignId: id, batch: 1 });
      return started;
    });
    return toCampaign(result);
  }

  /** SCHEDULED or SENDING → CANCELLED; mails not yet handed to SMTP become FAILED. */
  cancel(projectId: string, id: string): Promise<Campaign> {
    return this.db.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.status !== 'SCHEDULED' && row.status !== 'SENDING') {
        throw new ApiError(409, 'CAMPAIGN_NOT_CANCELLABLE', `A ${row.status} campaign cannot be cancelled (only SCHEDULED or SENDING ones)`, { suggestion: 'Check the campaign\'s status with GET /campaigns/{id}.' });
      }
      const cancelled = await this.campaigns.setStatus(id, 'CANCELLED', row.scheduled_for);
      const failed = await this.emails.failQueuedOfCampaign(id, 'The campaign was cancelled before this mail was handed to SMTP');
      this.logger.log(`campaign ${id} cancelled; ${failed} queued mails will not be sent`);
      return toCampaign(cancelled);
    });
  }

  /** POST /campaigns/:id/test: the campaign to one address, now (not counted in its stats). */
  async test(projectId: string, id: string, email: string): Promise<{ email: string; emailId: string; status: string }> {
    const sent = await this.db.transaction(async () => {
      const row = await this.row(projectId, id);
      await this.domains.requireVerifiedSender(projectId, row.from_email);
      const to = email.trim().toLowerCase();
      const contact = (await this.contacts.findByEmail(projectId, to)) ?? { id: 'test', email: to, subscribed: true, data: {} };
      const rendered = this.mail.render({ ...row, subject: `[Test] ${row.subject}` }, contact);
      const queued = await this.queue.enqueue({
        projectId,
        contactId: contact.id === 'test' ? null : contact.id,
        kind: 'MARKETING',
        source: 'CAMPAIGN',
        to,
        from: row.from_email,
        fromName: null,
        replyTo: null,
        subject: rendered.subject,
        html: rendered.html,
        headers: rendered.headers,
        attachments: [],
        data: { campaignTest: id },
      });
      return { email: to, emailId: queued.id, status: queued.status };
    });
    this.queue.flush();
    return sent;
  }

  async stats(projectId: string, id: string): Promise<CampaignStats & { status: string }> {
    const row = await this.row(projectId, id);
    return { status: row.status, ...(await this.campaigns.stats(id)) };
  }

  /**
   * One fan-out batch (a RabbitMQ message, inside its inbox transaction): the next recipients after
   * the campaign's cursor become queued mails on the project's throttle clock; the next message is
   * enqueued in the same transaction. Safe to run twice: the cursor is on the row (locked) and a
   * contact never gets a second mail of a campaign (unique index).
   */
  async fanOutBatch(campaignId: string, batch: number): Promise<void> {
    await this.db.transaction(async () => {
      const row = await this.campaigns.lockForFanout(campaignId);
      if (!row || row.status !== 'SENDING' || row.fanout_done) return;
      const audience = await this.audience(row.project_id, row, false);
      const contacts = await this.segmentRows.recipients(row.project_id, audience, row.fanout_after, FANOUT_BATCH, true);
      const queued = this.queue.smtpConfigured;
      const start = queued ? await this.emails.reserveSlots(row.project_id, contacts.length || 1, this.config.EMAIL_SEND_RATE) : new Date();
      const step = 1000 / this.config.EMAIL_SEND_RATE;
      const written = await this.emails.insertCampaignBatch(
        row.project_id,
        row.id,
        row.template_id,
        queued ? 'QUEUED' : 'STORED',
        queued ? null : NOT_SENT_NO_SMTP,
        contacts.map((c, i) => ({ contactId: c.id, to: c.email, from: row.from_email, ...this.mail.render(row, c), sendAt: new Date(start.getTime() + i * step) })),
      );
      const done = contacts.length < FANOUT_BATCH;
      await this.campaigns.advance(row.id, contacts.length ? contacts[contacts.length - 1].id : null, written, done);
      if (!done) await this.outbox.enqueue(EmailCampaignBatch, { projectId: row.project_id, campaignId: row.id, batch: batch + 1 });
    });
    this.queue.flush();
  }

  /** Scheduler: a due SCHEDULED campaign starts sending; a stalled fan-out is enqueued again. */
  async kick(row: CampaignRow): Promise<void> {
    await this.db.transaction(async () => {
      const current = await this.campaigns.lockForFanout(row.id);
      if (!current) return;
      if (current.status === 'SCHEDULED') await this.campaigns.setStatus(row.id, 'SENDING', current.scheduled_for);
      else if (current.status !== 'SENDING' || current.fanout_done) return;
      else await this.campaigns.advance(row.id, null, 0, false);
      await this.outbox.enqueue(EmailCampaignBatch, { projectId: current.project_id, campaignId: row.id, batch: 1 });
    });
  }

  /** The contacts a campaign goes to, compiled (subscribed contacts only when `subscribedOnly`). */
  private async audience(projectId: string, row: Pick<CampaignRow, 'audience_type' | 'segment_id' | 'audience_condition'>, subscribedOnly: boolean): Promise<Audience> {
    let audience: Audience;
    if (row.audience_type === 'SEGMENT') audience = await this.segments.audienceOfSegment(projectId, row.segment_id!);
    else if (row.audience_type === 'FILTERED') audience = await this.segments.audienceOf(projectId, row.audience_condition!, null);
    else audience = { sql: 'TRUE', params: [] };
    return subscribedOnly ? { sql: `(${audience.sql} AND c.subscribed)`, params: audience.params } : audience;
  }

  /** Checks a campaign body: the sender's verified domain, the template, the audience. */
  private async resolve(projectId: string, input: CampaignInput): Promise<{ fields: CampaignFields; domainId: string }> {
    const template = input.templateId ? await this.templates.get(projectId, input.templateId) : null;
    const subject = input.subject ?? template?.subject;
    const body = input.body ?? template?.body;
    const from = (input.from ?? template?.from)?.toLowerCase();
    const missing = [...(subject ? [] : ['subject']), ...(body ? [] : ['body']), ...(from ? [] : ['from'])];
    if (missing.length) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: missing.map((field) => ({ field, message: `${field} is required (or give a templateId that has it)`, code: 'required' })),
        suggestion: 'Give subject, body and from, or a templateId.',
      });
    }
    const domain = await this.domains.requireVerifiedSender(projectId, from!);
    let segmentId: string | null = null;
    let condition: Condition | null = null;
    if (input.audienceType === 'SEGMENT') {
      if (!input.segmentId) throw audienceError('segmentId', 'segmentId is required when audienceType is SEGMENT');
      if (!(await this.campaigns.segmentExists(projectId, input.segmentId))) throw audienceError('segmentId', 'no segment with this id in the project', 'not_found');
      segmentId = input.segmentId;
    } else if (input.segmentId) throw audienceError('segmentId', 'segmentId is only for audienceType SEGMENT');
    if (input.audienceType === 'FILTERED') {
      if (!input.audienceCondition) throw audienceError('audienceCondition', 'audienceCondition is required when audienceType is FILTERED');
      validateCondition(input.audienceCondition, 'audienceCondition');
      condition = input.audienceCondition as unknown as Condition;
      await this.segments.audienceOf(projectId, condition, null);
    } else if (input.audienceCondition) throw audienceError('audienceCondition', 'audienceCondition is only for audienceType FILTERED');
    return {
      domainId: domain.id,
      fields: { name: input.name, subject: subject!, body: body!, from: from!, templateId: template?.id ?? null, audienceType: input.audienceType, segmentId, audienceCondition: condition },
    };
  }
}

const notDraft = (status: string, what: string) =>
  new ApiError(409, 'CAMPAIGN_NOT_DRAFT', `Only a DRAFT campaign can be ${what}; this one is ${status}`, { suggestion: 'Duplicate the campaign (POST /campaigns/{id}/duplicate) to get a new DRAFT.' });

const audienceError = (field: string, message: string, code = 'invalid') =>
  new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors: [{ field, message, code }], suggestion: 'audienceType ALL takes nothing else, SEGMENT a segmentId, FILTERED an audienceCondition.' });
