import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { newId } from '../../common/ids';
import { DomainsService } from '../../domains/domains.service';
import { MailQueue } from '../../emails/mail-queue.service';
import { renderTemplate } from '../../emails/render';
import { UnsubscribeLinks } from '../../emails/unsubscribe-links';
import { suppressedReasonText, type Suppression } from '../../suppressions/suppression';
import { SuppressionsService } from '../../suppressions/suppressions.service';
import { TemplatesService } from '../../templates/templates.service';
import type { ExecutionTrigger } from '../execution';
import type { EngineContact, StepDef } from '../executions.repository';
import type { SendEmailConfig } from '../step-config';
import { StepError } from './step-error';

export type Template = Awaited<ReturnType<TemplatesService['get']>>;

/** The suppressions that stop mail to some recipients of one project, per kind of mail (`blockingOf`). */
export type Blocked = Record<'MARKETING' | 'TRANSACTIONAL', Map<string, Suppression>>;

/** Who a SEND_EMAIL step writes to: the contact (marketing mail) or its fixed `to` (transactional). */
function recipientOf(step: StepDef, contact: EngineContact): { to: string; kind: 'MARKETING' | 'TRANSACTIONAL' } {
  const to = (step.config as unknown as SendEmailConfig).to;
  return { to: (to ?? contact.email).toLowerCase(), kind: to ? 'TRANSACTIONAL' : 'MARKETING' };
}

export interface SentMail {
  emailId: string;
  status: string;
  to: string;
  kind: 'MARKETING' | 'TRANSACTIONAL';
}

/**
 * SEND_EMAIL: the template rendered for the contact and written to the send queue (`MailQueue`,
 * source WORKFLOW), in the caller's transaction — the one that completes the step run, so a crash
 * can never leave a mail without its completed step or a completed step without its mail.
 *
 * - To the contact (no `to`): marketing mail, with `List-Unsubscribe` and
 *   `List-Unsubscribe-Post: List-Unsubscribe=One-Click` as campaign mail; an unsubscribed contact or a
 *   suppressed address gets a SUPPRESSED record and nothing is sent (the step completes, its output
 *   says so).
 * - To a fixed `to` address (a notification about the contact, e.g. to a sales inbox): transactional
 *   mail, stopped by every suppression reason but `unsubscribe`.
 * The send worker then applies the project's send throttle (workflow mail after transactional mail,
 * before campaign mail) and checks marketing suppressions again when it sends.
 */
@Injectable()
export class SendEmailStep {
  constructor(
    private readonly templates: TemplatesService,
    private readonly domains: DomainsService,
    private readonly suppressions: SuppressionsService,
    private readonly queue: MailQueue,
    private readonly links: UnsubscribeLinks,
  ) {}

  /**
   * Renders the mail and decides its recipient, kind and status (SUPPRESSED, or QUEUED / STORED),
   * without writing it: `write()` queues it. The engine records the step's completion first and
   * writes the mail last in the same transaction, so that the project's usage counter (billing
   * caps), which every mail of the project updates, stays locked only for the end of the
   * transaction. `memo` (one per engine tick) keeps a template and its sender check for the mails
   * of the same step written in that tick: many executions at one step read them once. `blocked`:
   * the suppressions of the project's recipients looked up already (`blockingOf`), else looked up here.
   */
  async prepare(
    execution: { id: string; projectId: string; trigger: ExecutionTrigger; context: Record<string, unknown> },
    step: StepDef,
    contact: EngineContact,
    memo: Map<string, Promise<Template>> = new Map(),
    blocked?: Blocked,
  ): Promise<{ mail: SentMail; write: () => Promise<void> }> {
    const config = step.config as unknown as SendEmailConfig;
    const projectId = execution.projectId;
    const key = `${projectId}:${config.templateId}`;
    let pending = memo.get(key);
    if (!pending) {
      pending = this.sendable(projectId, config.templateId);
      memo.set(key, pending);
      pending.catch(() => memo.delete(key));
    }
    const template = await pending;
    const toContact = !config.to;
    const { to, kind } = recipientOf(step, contact);
    const suppression = blocked ? blocked[kind].get(to) : (await this.suppressions.blocking(projectId, [to], kind)).get(to);
    const unsubscribeUrl = this.links.url(contact.id);
    const vars = {
      ...contact.data,
      data: contact.data,
      email: contact.email,
      id: contact.id,
      subscribed: contact.subscribed,
      event: execution.trigger.data ?? {},
      context: execution.context,
      unsubscribeUrl,
      manageUrl: unsubscribeUrl,
    };
    const headers: Record<string, string> = toContact ? { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', Precedence: 'bulk' } : {};
    headers['X-Workflow-Execution-Id'] = execution.id;
    const reason = suppression ? suppressedReasonText(suppression) : toContact && !contact.subscribed ? 'The contact is unsubscribed: marketing email is not sent to it' : undefined;
    const id = newId('eml');
    const mail: SentMail = { emailId: id, status: reason ? 'SUPPRESSED' : this.queue.smtpConfigured ? 'QUEUED' : 'STORED', to, kind };
    const write = async () => {
      await this.enqueue(
        {
          id,
          projectId,
          contactId: toContact ? contact.id : null,
          kind,
          source: 'WORKFLOW',
          to,
          from: template.from,
          fromName: null,
          replyTo: null,
          subject: renderTemplate(template.subject, vars, false),
          html: renderTemplate(template.body, vars, true),
          headers,
          attachments: [],
          data: null,
          templateId: template.id,
          workflowExecutionId: execution.id,
        },
        reason,
      );
    };
    return { mail, write };
  }

  /** The suppressions stopping the mails of these SEND_EMAIL steps of one project, in one look-up per kind of mail (for `prepare`). */
  async blockingOf(projectId: string, mails: Array<{ step: StepDef; contact: EngineContact }>): Promise<Blocked> {
    const recipients = { MARKETING: [] as string[], TRANSACTIONAL: [] as string[] };
    for (const m of mails) {
      const { to, kind } = recipientOf(m.step, m.contact);
      recipients[kind].push(to);
    }
    const [MARKETING, TRANSACTIONAL] = await Promise.all(
      (['MARKETING', 'TRANSACTIONAL'] as const).map((kind) => (recipients[kind].length ? this.suppressions.blocking(projectId, recipients[kind], kind) : new Map<string, Suppression>())),
    );
    return { MARKETING, TRANSACTIONAL };
  }

  /** Prepares and writes at once (in the caller's transaction); answers what was written. */
  async send(...args: Parameters<SendEmailStep['prepare']>): Promise<SentMail> {
    const { mail, write } = await this.prepare(...args);
    await write();
    return mail;
  }

  /** A refusal of the queue (a billing cap reached) fails this attempt: retried, as the cap may be raised. */
  private async enqueue(...args: Parameters<MailQueue['enqueue']>): ReturnType<MailQueue['enqueue']> {
    try {
      return await this.queue.enqueue(...args);
    } catch (err) {
      if (err instanceof ApiError && err.getStatus() < 500) throw new StepError(`the mail was refused: ${err.message}`);
      throw err;
    }
  }

  /** The template, once its sender is checked to be on a verified domain of the project. */
  private async sendable(projectId: string, templateId: string): Promise<Template> {
    let template: Template;
    try {
      template = await this.templates.get(projectId, templateId);
    } catch (err) {
      if (err instanceof ApiError && err.getStatus() === 404) throw new StepError(`template ${templateId} not found`, true);
      throw err;
    }
    try {
      await this.domains.assertSendableSender(projectId, template.from);
    } catch (err) {
      if (err instanceof ApiError) throw new StepError(`sender ${template.from}: ${err.message}`);
      throw err;
    }
    return template;
  }

  /** After the transaction committed: the local send worker looks at once. */
  flush(): void {
    this.queue.flush();
  }
}
