import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { BillingService } from '../billing/billing.service';
import { Clock } from '../common/clock';
import { ContactsService } from '../contacts/contacts.service';
import { EventsService } from '../events/events.service';
import type { RunRow } from '../runs/run';
import { RunsService } from '../runs/runs.service';
import type { InboundRow } from './inbound';
import { InboundService } from './inbound.service';

/** What starts a run: the person, the trigger and the platform ids of the comment or message. */
export interface RunTrigger {
  igId: string;
  /** The person's handle; undefined: the one their contact row knows (messages carry none). */
  username?: string | null;
  trigger: string;
  mediaId: string | null;
  commentId: string | null;
  parentId: string | null;
  messageId: string | null;
  text: string | null;
}

/**
 * The input side of a work item, called by the process use cases inside their transaction: the
 * person seen (contact upsert), the run started once per trigger (the unique keys of `runs` decide
 * between concurrent workers), and the item marked applied with its run, so that a retry goes
 * straight to moving the run.
 */
@Injectable()
export class ApplyInput {
  constructor(
    private readonly runs: RunsService,
    private readonly contacts: ContactsService,
    private readonly events: EventsService,
    private readonly inbound: InboundService,
    private readonly clock: Clock,
    private readonly billing: BillingService,
  ) {}

  /** Counts the comment, message or tap on the person's contact (created on first sight). */
  touch(accountId: number, igId: string, username: string | null, kind: 'comment' | 'message' | 'tap'): Promise<void> {
    return this.contacts.touch(accountId, igId, username, kind, this.clock.now());
  }

  /** The item's input is stored: its run (or none). */
  applied(ev: InboundRow, runId: string | null): Promise<void> {
    return this.inbound.markApplied(ev.id, runId);
  }

  /**
   * The person's run a text message goes to before any matching: the one waiting for an email, else
   * (a DM, not a story reply) one whose button went out as text (template refused: the reply is the tap).
   */
  async waitingRun(accountId: number, igId: string, kind: 'message' | 'story_reply'): Promise<RunRow | null> {
    return (await this.runs.awaitingEmail(accountId, igId)) ?? (kind === 'message' ? await this.runs.awaitingTapByText(accountId, igId) : null);
  }

  /** Creates the run (once per trigger) unless once_per_user already saw this person; returns its id. */
  async startRun(account: AccountEntity, a: AutomationEntity, trigger: RunTrigger): Promise<string | null> {
    const contact = await this.contacts.find(account.id, trigger.igId);
    const t = { ...trigger, username: trigger.username !== undefined ? trigger.username : (contact?.username ?? null) };
    const existing = await this.runs.forTrigger(a.id, t.commentId, t.messageId);
    if (existing) return existing.id;
    const fields = {
      account_id: account.id,
      automation_id: a.id,
      contact_ig_id: t.igId,
      username: t.username,
      trigger: t.trigger,
      media_id: t.mediaId,
      comment_id: t.commentId,
      parent_comment_id: t.parentId,
      message_id: t.messageId,
      trigger_text: t.text,
      transition: a.transition_mode,
    };
    if (a.once_per_user && (await this.runs.hasRun(a.id, t.igId))) {
      // Recorded as a run in state `skipped`, reason `once_per_user` (Funnel.skipped; not counted as triggered), nothing sent.
      const skipped = await this.runs.insert({ ...fields, state: 'skipped', error: 'once_per_user' });
      await this.events.record(account.id, { kind: 'skipped', automation_id: a.id, run_id: skipped?.id ?? null, username: t.username, text: 'once_per_user: this person already went through the automation', ref: t.commentId ?? t.messageId });
      return null;
    }
    if (contact?.opted_out_at) {
      // The person sent STOP (OptOut): recorded as a run in state `skipped`, reason `opted_out`; nothing sent.
      const skipped = await this.runs.insert({ ...fields, state: 'skipped', error: 'opted_out' });
      await this.events.record(account.id, { kind: 'skipped', automation_id: a.id, run_id: skipped?.id ?? null, username: t.username, text: 'opted_out: this person sent STOP', ref: t.commentId ?? t.messageId });
      return null;
    }
    if (contact?.paused_until && contact.paused_until.getTime() > this.clock.now().getTime()) {
      // A person of the account is answering this conversation by hand (ProcessEcho): recorded as a run in state `skipped`, reason `human_takeover`.
      const skipped = await this.runs.insert({ ...fields, state: 'skipped', error: 'human_takeover' });
      await this.events.record(account.id, { kind: 'skipped', automation_id: a.id, run_id: skipped?.id ?? null, username: t.username, text: `human_takeover: a person of the account is answering this conversation (paused until ${contact.paused_until.toISOString()})`, ref: t.commentId ?? t.messageId });
      return null;
    }
    const refusal = await this.billing.runRefusal(account.id);
    if (refusal) {
      // Recorded as a run in state `skipped`, reason `plan_limit`: nothing sent, not counted as triggered.
      const skipped = await this.runs.insert({ ...fields, state: 'skipped', error: 'plan_limit' });
      await this.events.record(account.id, { kind: 'skipped', automation_id: a.id, run_id: skipped?.id ?? null, username: t.username, text: `plan_limit: ${refusal} reached; no new runs until the next month`, ref: t.commentId ?? t.messageId });
      return null;
    }
    const run = await this.runs.insert(fields);
    if (!run) return (await this.runs.forTrigger(a.id, t.commentId, t.messageId))?.id ?? null;
    await this.contacts.tag(account.id, t.igId, a.tags);
    await this.events.record(account.id, { kind: 'triggered', automation_id: a.id, run_id: run.id, username: t.username, text: t.text, ref: t.commentId ?? t.messageId });
    return run.id;
  }
}
