import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Database } from '@platform/database';
import { AutomationEmailCaptured, AutomationLinkSent, Outbox } from '@platform/messaging';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { AutomationsRepository } from '../automations/automations.repository';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { ClicksRepository } from '../clicks/clicks.repository';
import { Clock } from '../common/clock';
import { ContactsRepository } from '../contacts/contacts.repository';
import { AutomationConfig } from '../config';
import { EventsService } from '../events/events.service';
import { BudgetExhaustedError } from '../graph/call-budget';
import { GraphApiError } from '../graph/graph-api.error';
import { buttonTemplate, type GraphButton, type GraphMessage } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { ENGINE_PROBLEM_PREFIX } from '../status/status.service';
import { selectRule } from '../matching/keyword-matcher';
import type { RunRow } from '../runs/run';
import { RunsRepository } from '../runs/runs.repository';
import { DeliveriesRepository } from './deliveries.repository';
import { InboundRepository, type InboundRow } from './inbound.repository';
import { parsePostbackPayload, transition, type MachineAutomation, type MachineInput, type MachineMessage, type MachineResult, type MachineRun } from './run-machine';
import { SendsRepository, type SendRow } from './sends.repository';

/** The work item has to wait (private-reply budget used up): not an attempt, not an error. */
export class DeferredError extends Error {
  constructor(readonly delayMs: number, message: string) {
    super(message);
  }
}

/** Another worker moved the run meanwhile (optimistic lock): process the item again. */
export class StaleRunError extends Error {}

/** A failure while moving a run; carries the run for the error state and the Event. */
export class RunError extends Error {
  constructor(readonly runId: string, override readonly cause: unknown) {
    super(cause instanceof GraphApiError ? cause.detail : cause instanceof Error ? cause.message : String(cause));
  }

  get retryable(): boolean {
    return isRetryable(this.cause);
  }
}

export function isRetryable(err: unknown): boolean {
  if (err instanceof RunError) return err.retryable;
  if (err instanceof GraphApiError) return err.retryable;
  return !(err instanceof DeferredError);
}

const DAY_MS = 86_400_000;

type SendKind = 'public_reply' | 'private_reply' | 'dm';
type SendOutcome = 'sent' | 'already' | 'refused' | 'window_closed';

type TemplateMessage = Extract<GraphMessage, { attachment: unknown }>;

function isTemplate(message: unknown): message is TemplateMessage {
  const m = message as TemplateMessage | undefined;
  return Boolean(m && typeof m === 'object' && m.attachment?.type === 'template' && Array.isArray(m.attachment.payload?.buttons));
}

function hasPostback(message: unknown): boolean {
  return isTemplate(message) && message.attachment.payload.buttons.some((b) => b.type === 'postback');
}

/**
 * A button template as plain text: the text, then each link button as `Title: URL` on its own line
 * (the URL the button carried, so tracked `/r/{code}` links stay tracked), and for a postback button
 * (opening or gate button) `Reply "<title>" to continue.` — a text message from the person then
 * counts as the tap (runs.text_fallback).
 */
export function templateAsText(message: TemplateMessage): string {
  const { text, buttons } = message.attachment.payload;
  const lines = buttons.map((b) => (b.type === 'web_url' ? `${b.title}: ${b.url}` : `Reply "${b.title}" to continue.`));
  return [text, '', ...lines].join('\n');
}

/** Whether `text` @mentions `username` (case-insensitive, whole handle). */
export function mentions(text: string, username: string): boolean {
  const handle = username.replace(/^@/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.@])@${handle}(?!\\w|\\.\\w)`, 'i').test(text);
}

/** Epoch ms of a Graph timestamp (`2024-01-01T10:00:00+0000`); null when absent or unreadable. */
function graphTime(ts: string | undefined): number | null {
  if (!ts) return null;
  const ms = Date.parse(ts.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : null;
}

function deferred(wait: number): DeferredError {
  return new DeferredError(wait, `private replies per hour used up; deferred by ${Math.ceil(wait / 1000)} s`);
}
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A short unguessable code: 12 base62 characters from crypto.randomBytes (≈71 bits). */
export function newClickCode(length = 12): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/** Whether a comment automation covers the post: next_post only its attached reel; else media_ids (empty = all). */
export function coversMedia(a: AutomationEntity, mediaId: string | null): boolean {
  if (a.next_post) return a.reel_status === 'attached' && mediaId !== null && (a.reel_media_id === mediaId || (a.media_ids ?? []).includes(mediaId));
  if (!a.media_ids || a.media_ids.length === 0) return true;
  return mediaId !== null && a.media_ids.includes(mediaId);
}

function machineAutomation(a: AutomationEntity): MachineAutomation {
  return a;
}

function machineRun(r: RunRow): MachineRun {
  return { ...r, trigger: r.trigger };
}

/**
 * Processes one work item of the queue (webhook deliveries, reminders, reel backfills): finds or
 * starts the run, feeds the input to the state machine, performs its sends with intents, and
 * stores the transition with its Events, customer webhooks and bus events in one transaction.
 * Every step is idempotent: the item may be processed again after a crash or a redelivery.
 */
@Injectable()
export class EngineService {
  private readonly logger = new Logger(EngineService.name);

  constructor(
    private readonly db: Database,
    private readonly inbound: InboundRepository,
    private readonly runs: RunsRepository,
    private readonly sends: SendsRepository,
    private readonly automations: AutomationsRepository,
    private readonly contacts: ContactsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly clicks: ClicksRepository,
    private readonly accounts: AccountsService,
    private readonly graph: GraphService,
    private readonly events: EventsService,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  async process(ev: InboundRow): Promise<void> {
    const account = await this.accounts.findById(ev.account_id);
    if (!account) return;
    switch (ev.kind) {
      case 'comment':
      case 'backfill':
        return this.comment(ev, account);
      case 'message':
      case 'story_reply':
        return this.message(ev, account);
      case 'postback':
        return this.postback(ev, account);
      case 'follow_up':
        return this.followUp(ev, account);
    }
  }

  /** Records a run's final failure: state error, an Event, and the account's problem (GET /status). */
  async fail(ev: InboundRow, err: unknown): Promise<void> {
    const detail = err instanceof RunError ? err.message : err instanceof Error ? err.message : String(err);
    const runId = err instanceof RunError ? err.runId : ev.run_id;
    if (runId) await this.runs.fail(runId, detail);
    const run = runId ? await this.runs.find(runId) : null;
    await this.events.record(ev.account_id, { kind: 'error', automation_id: run?.automation_id ?? null, run_id: runId, username: run?.username ?? null, text: detail.slice(0, 1000), ref: ev.dedup_key });
    const cause = err instanceof RunError ? err.cause : err;
    if (cause instanceof GraphApiError) {
      await this.accounts.update(ev.account_id, { last_problem: `${ENGINE_PROBLEM_PREFIX}run ${runId ?? '-'}: ${cause.message}`, last_problem_at: this.clock.now() });
    }
  }

  // ── inputs ────────────────────────────────────────────────────────────────────────────────────

  private async comment(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as { comment_id: string; media_id: string | null; text: string; from: { id: string; username?: string }; parent_id?: string; entry_id?: string; automation_id?: number; counted?: boolean };
    let runId = ev.run_id;
    if (!ev.applied_at) {
      if (ev.kind === 'backfill' && (await this.runs.commentHandled(account.id, p.comment_id))) {
        return;
      }
      runId = await this.db.transaction(async () => {
        const now = this.clock.now();
        if (!p.counted) await this.contacts.touch(account.id, p.from.id, p.from.username ?? null, 'comment', now);
        let candidates = (await this.automations.live(account.id, 'comment')).filter((a) => coversMedia(a, p.media_id));
        if (ev.kind === 'backfill') candidates = candidates.filter((a) => a.id === p.automation_id);
        const match = selectRule(p.text ?? '', candidates);
        const run = match ? await this.startRun(account, match.rule, ev, { igId: p.from.id, username: p.from.username ?? null, trigger: 'comment', mediaId: p.media_id, commentId: p.comment_id, parentId: p.parent_id ?? null, messageId: null, text: p.text }) : null;
        await this.inbound.markApplied(ev.id, run);
        return run;
      });
    }
    if (!runId) return;
    const run = await this.runs.find(runId);
    if (!run || run.state !== 'started') return;
    const a = await this.automations.findById(run.automation_id);
    if (!a) return;
    await this.guard(run.id, async () => {
      let answeredByOther = false;
      if (run.comment_id && a.skip_if_answered && !(await this.sends.any(run.id))) {
        const accountId = account.ig_user_id ?? p.entry_id ?? null;
        answeredByOther = run.parent_comment_id
          ? await this.replyAnsweredByOther(account, run, accountId)
          : await this.commentAnsweredByOther(account, run.comment_id, accountId);
      }
      const contact = await this.contacts.find(account.id, run.contact_ig_id);
      await this.advance(account, a, run, ev, { type: 'start', answeredByOther, knownEmail: contact?.email ?? null });
    });
  }

  /** skip_if_answered, top-level comment: a reply under it from the account that the service did not post. */
  private async commentAnsweredByOther(account: AccountEntity, commentId: string, accountId: string | null): Promise<boolean> {
    const comment = await this.graph.client(account, 'background').getComment(commentId);
    const own = await this.runs.ownReplyIds(account.id, commentId);
    return (comment.replies?.data ?? []).some((r) => r.from?.id === accountId && !own.has(r.id));
  }

  /**
   * skip_if_answered, a comment that is itself a reply. The platform keeps one level of replies: an
   * answer to a reply is posted under the same top-level comment and addresses its author with an
   * @mention (what the app pre-fills). So the reply counts as answered when the parent's replies hold
   * one from the account that the service did not post (none of the thread's own replies), that
   * @mentions the reply's author, and that is not older than the reply.
   */
  private async replyAnsweredByOther(account: AccountEntity, run: RunRow, accountId: string | null): Promise<boolean> {
    const parent = await this.graph.client(account, 'background').getComment(run.parent_comment_id!);
    const replies = parent.replies?.data ?? [];
    const trigger = replies.find((r) => r.id === run.comment_id);
    const username = run.username ?? trigger?.from?.username ?? null;
    if (!username) return false; // an answer cannot be told apart from answers to other replies
    const own = await this.runs.ownReplyIdsInThread(account.id, run.parent_comment_id!);
    const since = graphTime(trigger?.timestamp);
    return replies.some(
      (r) =>
        r.id !== run.comment_id &&
        r.from?.id === accountId &&
        !own.has(r.id) &&
        mentions(r.text ?? '', username) &&
        (since === null || (graphTime(r.timestamp) ?? since) >= since),
    );
  }

  private async message(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as { mid: string; sender_id: string; text?: string; story_id?: string };
    let runId = ev.run_id;
    if (!ev.applied_at) {
      runId = await this.db.transaction(async () => {
        await this.contacts.touch(account.id, p.sender_id, null, 'message', this.clock.now());
        // A text goes to the person's run waiting for an email, else to one whose button went out as
        // text (template refused: the reply is the tap), before any matching.
        const waiting = p.text
          ? ((await this.runs.awaitingEmail(account.id, p.sender_id)) ?? (ev.kind === 'message' ? await this.runs.awaitingTapByText(account.id, p.sender_id) : null))
          : null;
        if (waiting) {
          await this.inbound.markApplied(ev.id, waiting.id);
          return waiting.id;
        }
        const trigger = ev.kind === 'story_reply' ? 'story_reply' : 'dm';
        const match = selectRule(p.text ?? '', await this.automations.live(account.id, trigger));
        const contact = await this.contacts.find(account.id, p.sender_id);
        const run = match
          ? await this.startRun(account, match.rule, ev, { igId: p.sender_id, username: contact?.username ?? null, trigger, mediaId: p.story_id ?? null, commentId: null, parentId: null, messageId: p.mid, text: p.text ?? null })
          : null;
        await this.inbound.markApplied(ev.id, run);
        return run;
      });
    }
    const loaded = runId ? await this.loadRun(runId, account.id) : null;
    if (!loaded) return;
    const { run, automation: a, contact } = loaded;
    const starting = run.message_id === p.mid;
    if (starting && run.state === 'started' && !run.username) {
      // Messages carry no handle; the person messaged us, so the profile may be read ({username} in texts).
      run.username = contact?.username ?? (await this.username(account, run.contact_ig_id));
      if (run.username) await this.runs.setUsername(run.id, run.username);
    }
    const tapByText = !starting && run.text_fallback && (run.state === 'awaiting_tap' || run.state === 'gated');
    const input: MachineInput = starting
      ? { type: 'start', answeredByOther: false, knownEmail: contact?.email ?? null }
      : tapByText
        ? { type: 'tap', knownEmail: contact?.email ?? null, now: this.clock.now() }
        : { type: 'text', text: p.text ?? '' };
    await this.guard(run.id, () => this.advance(account, a, run, ev, input));
  }

  private async postback(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as { mid: string; sender_id: string; payload?: string };
    let runId = ev.run_id;
    if (!ev.applied_at) {
      runId = await this.db.transaction(async () => {
        await this.contacts.touch(account.id, p.sender_id, null, 'tap', this.clock.now());
        const ref = parsePostbackPayload(p.payload);
        const run = ref ? await this.runs.find(ref.runId) : null;
        const mine = run && run.account_id === account.id && run.contact_ig_id === p.sender_id ? run.id : null;
        await this.inbound.markApplied(ev.id, mine);
        return mine;
      });
    }
    const loaded = runId ? await this.loadRun(runId, account.id) : null;
    if (!loaded) return;
    const { run, automation: a, contact } = loaded;
    await this.guard(run.id, () => this.advance(account, a, run, ev, { type: 'tap', knownEmail: contact?.email ?? null, now: this.clock.now() }));
  }

  /** A run with its automation and the person's contact row, once the inbound item is applied; null when either is gone. */
  private async loadRun(runId: string, accountId: number) {
    const run = await this.runs.find(runId);
    if (!run) return null;
    const automation = await this.automations.findById(run.automation_id);
    if (!automation) return null;
    return { run, automation, contact: await this.contacts.find(accountId, run.contact_ig_id) };
  }

  private async followUp(ev: InboundRow, account: AccountEntity): Promise<void> {
    const run = await this.runs.find(String(ev.payload.run_id));
    if (!run) return;
    const a = await this.automations.findById(run.automation_id);
    if (!a) return;
    const contact = await this.contacts.find(account.id, run.contact_ig_id);
    const last = contact?.last_inbound_at ? new Date(contact.last_inbound_at).getTime() : null;
    const windowOpen = last !== null && this.clock.now().getTime() - last < DAY_MS;
    await this.guard(run.id, () => this.advance(account, a, run, ev, { type: 'follow_up_due', windowOpen }));
  }

  /** Creates the run (once per trigger) unless once_per_user already saw this person; returns its id. */
  private async startRun(
    account: AccountEntity,
    a: AutomationEntity,
    ev: InboundRow,
    t: { igId: string; username: string | null; trigger: string; mediaId: string | null; commentId: string | null; parentId: string | null; messageId: string | null; text: string | null },
  ): Promise<string | null> {
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
    const run = await this.runs.insert(fields);
    if (!run) return (await this.runs.forTrigger(a.id, t.commentId, t.messageId))?.id ?? null;
    await this.contacts.tag(account.id, t.igId, a.tags);
    await this.events.record(account.id, { kind: 'triggered', automation_id: a.id, run_id: run.id, username: t.username, text: t.text, ref: t.commentId ?? t.messageId });
    return run.id;
  }

  private async guard(runId: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (err instanceof DeferredError || err instanceof StaleRunError || err instanceof RunError) throw err;
      throw new RunError(runId, err);
    }
  }

  // ── the state machine and its effects ─────────────────────────────────────────────────────────

  private async advance(account: AccountEntity, a: AutomationEntity, run: RunRow, ev: InboundRow, input: MachineInput): Promise<void> {
    const ma = machineAutomation(a);
    let res = transition(machineRun(run), ma, input);
    if (res.needs === 'follow_status') {
      const follows = await this.followStatus(account, run);
      const contact = await this.contacts.find(account.id, run.contact_ig_id);
      res = transition(machineRun(run), ma, { type: 'follow_status', follows, knownEmail: contact?.email ?? null });
      if (follows === null) res.notes.push('follow_status_unknown');
    }
    let publicDone = false;
    for (const msg of res.messages) {
      const outcome = await this.send(account, a, run, msg, ev);
      if (msg.kind === 'public_reply') publicDone = true;
      if (outcome === 'refused') {
        // The platform refused the first private reply: another tool already answered this comment privately.
        res = { state: 'skipped_other_tool', stamps: publicDone ? ['public_reply_sent_at'] : [], messages: [], effects: [], notes: ['skipped_other_tool'] };
        break;
      }
      if (outcome === 'window_closed') {
        // The comment is older than the platform's 7-day private-reply window.
        res = { state: 'skipped', stamps: publicDone ? ['public_reply_sent_at'] : [], messages: [], effects: [], notes: ['private_reply_window_closed'], error: 'private reply window closed (comment older than 7 days)' };
        break;
      }
    }
    if (res.state === run.state && res.stamps.every((s) => run[s] !== null) && res.messages.length === 0 && res.effects.length === 0) {
      for (const note of res.notes.filter((n) => n !== 'ignored')) await this.events.record(account.id, { kind: note, automation_id: a.id, run_id: run.id, username: run.username });
      return;
    }
    await this.commit(account, a, run, res);
  }

  private async commit(account: AccountEntity, a: AutomationEntity, run: RunRow, res: MachineResult): Promise<void> {
    const now = this.clock.now();
    const stamps = res.stamps.filter((s) => run[s] === null);
    const followUpAt = res.effects.includes('schedule_follow_up') ? new Date(now.getTime() + a.follow_up_minutes * 60_000) : undefined;
    await this.db.transaction(async () => {
      const ok = await this.runs.update(run, { state: res.state, stamps, email: res.email, follow_up_due_at: followUpAt, error: res.error }, now);
      if (!ok) throw new StaleRunError(`run ${run.id} changed meanwhile`);
      const base = { automation_id: a.id, run_id: run.id, username: run.username };
      if (res.email) await this.contacts.setEmail(account.id, run.contact_ig_id, res.email);
      for (const stamp of stamps) {
        const kind = stamp.replace(/_at$/, '');
        await this.events.record(account.id, { ...base, kind, text: kind === 'email_captured' ? (res.email ?? null) : null });
      }
      for (const note of res.notes.filter((n) => n !== 'ignored')) await this.events.record(account.id, { ...base, kind: note });
      if (res.effects.includes('email_captured') && res.email) await this.announce(account, a, run, 'email_captured', res.email, now);
      if (res.effects.includes('link_sent')) await this.announce(account, a, run, 'link_sent', res.email ?? run.email, now);
      if (followUpAt) {
        await this.inbound.insert([
          { account_id: account.id, dedup_key: `follow_up:${run.id}`, kind: 'follow_up', subject: `${account.id}:${run.contact_ig_id}`, payload: { run_id: run.id }, not_before: followUpAt },
        ]);
      }
    });
  }

  /** Customer webhook (stored for delivery with retries) and bus event (outbox), in the caller's transaction. */
  private async announce(account: AccountEntity, a: AutomationEntity, run: RunRow, kind: 'email_captured' | 'link_sent', email: string | null, at: Date): Promise<void> {
    const contact = await this.contacts.find(account.id, run.contact_ig_id);
    const tracked = a.track_clicks && Boolean(account.public_base_url);
    if (a.webhook_url) {
      const payload = {
        event: kind,
        occurred_at: at.toISOString(),
        automation: { id: a.id, name: a.name },
        contact: { ig_id: run.contact_ig_id, username: contact?.username ?? run.username, email: email ?? contact?.email ?? null },
        run_id: Number(run.id),
        ...(kind === 'link_sent' ? { link: a.link_url } : {}),
      };
      await this.deliveries.insert({ account_id: account.id, automation_id: a.id, run_id: run.id, kind, url: a.webhook_url, payload });
    }
    const ref = {
      accountId: String(account.id),
      emailPublicKey: account.email_public_key,
      igUserId: run.contact_ig_id,
      igUsername: contact?.username ?? run.username,
      automationId: String(a.id),
      runId: String(run.id),
    };
    if (kind === 'email_captured') {
      await this.outbox.enqueue(AutomationEmailCaptured, { ...ref, email: email!, automationName: a.name, tags: a.tags });
    } else {
      await this.outbox.enqueue(AutomationLinkSent, { ...ref, email: email ?? contact?.email ?? null, linkUrl: a.link_url ?? a.extra_links[0]?.url ?? '', tracked });
    }
  }

  /** The person's handle from the profile, best effort (null when the platform does not answer). */
  private async username(account: AccountEntity, igId: string): Promise<string | null> {
    try {
      const profile = await this.graph.client(account, 'background').getUserProfile(igId);
      if (profile.username) await this.contacts.setFollows(account.id, igId, typeof profile.is_user_follow_business === 'boolean' ? profile.is_user_follow_business : null, profile.username);
      return profile.username ?? null;
    } catch (err) {
      this.logger.debug(`profile of ${igId} not readable: ${(err as Error).message}`);
      return null;
    }
  }

  /** is_user_follow_business; null when the platform does not say (consent missing, field absent). */
  private async followStatus(account: AccountEntity, run: RunRow): Promise<boolean | null> {
    try {
      const profile = await this.graph.client(account, 'background').getUserProfile(run.contact_ig_id);
      const follows = typeof profile.is_user_follow_business === 'boolean' ? profile.is_user_follow_business : null;
      await this.contacts.setFollows(account.id, run.contact_ig_id, follows, profile.username ?? null);
      return follows;
    } catch (err) {
      if (err instanceof GraphApiError && !err.retryable && err.kind === 'platform') return null;
      throw err;
    }
  }

  // ── sends with intents ────────────────────────────────────────────────────────────────────────

  /**
   * One outgoing message, at most once: the intent is stored before the platform call and confirmed
   * after. An unconfirmed intent found later (crash or timeout) is resolved without a blind resend:
   * a public reply is looked up under the comment first; a private reply is tried again and the
   * platform's "invalid for a private reply" means it went out; a plain DM is not sent again.
   */
  private async send(account: AccountEntity, a: AutomationEntity, run: RunRow, msg: MachineMessage, ev: InboundRow): Promise<SendOutcome> {
    const stepKey = `${msg.step}:v${run.version}`;
    const kind = msg.kind === 'public_reply' ? 'public_reply' : msg.to === 'comment' ? 'private_reply' : 'dm';
    const existing = await this.sends.find(run.id, stepKey);
    if (existing?.status === 'done') return 'already';
    const client = this.graph.client(account, 'background');
    const uncertain = existing?.status === 'intent';
    const base = { automation_id: a.id, run_id: run.id, username: run.username };

    if (uncertain && kind === 'dm') {
      await this.sends.done(existing.id, null, 'uncertain: not sent again');
      await this.events.record(account.id, { ...base, kind: 'send_uncertain', text: `${msg.step}: the platform did not confirm the message; not sent twice`, ref: stepKey });
      return 'already';
    }
    if (uncertain && kind === 'public_reply') {
      const commentId = String(existing.payload.comment_id);
      const comment = await client.getComment(commentId);
      const accountId = account.ig_user_id;
      const found = (comment.replies?.data ?? []).find((r) => (!accountId || r.from?.id === accountId) && r.text === existing.payload.text);
      if (found) {
        await this.confirmPublicReply(account, run, existing.id, commentId, found.id);
        return 'already';
      }
    }

    const payload: Record<string, unknown> =
      existing?.payload ??
      (msg.kind === 'public_reply' ? { comment_id: msg.commentId, text: msg.text } : { recipient: msg.to === 'comment' ? { comment_id: run.comment_id } : { id: run.contact_ig_id }, message: await this.graphMessage(account, a, run, msg) });

    if (kind === 'private_reply') {
      // The budget is shared by every replica (PostgreSQL): ask it before recording the intent.
      const wait = await this.graph.privateReplyBudget(account.id).checkWaitMs();
      if (wait > 0) throw deferred(wait);
    }
    let intent = existing ?? (await this.sends.recordIntent(account.id, run.id, stepKey, kind, payload));
    if (intent.status === 'done') return 'already';
    await this.inbound.renewLease(ev.id, this.config.AUTOMATION_LEASE_SECONDS);
    try {
      return await this.deliver(account, run, kind, intent, uncertain);
    } catch (err) {
      // The platform refused the button template (code 100, see GraphApiError.templateRejected): the
      // intent's payload becomes the same message as text (links inline) and goes out once; a crash
      // from here on finds the text intent and resolves it like any other unconfirmed send.
      if (!(err instanceof GraphApiError) || !err.templateRejected || !isTemplate(intent.payload.message)) throw err;
      const template = intent.payload.message;
      intent = await this.sends.replacePayload(intent.id, { ...intent.payload, message: { text: templateAsText(template) }, fallback: 'text' });
      if (hasPostback(template)) await this.runs.setTextFallback(run.id);
      await this.events.record(account.id, { ...base, kind: 'template_fallback', text: `${msg.step}: button template refused by the platform (${err.detail}); sent as text`.slice(0, 1000), ref: stepKey });
      return await this.deliver(account, run, kind, intent, uncertain);
    }
  }

  /**
   * The platform call of one intent and its confirmation, with the refusals a private reply may meet.
   * `uncertain`: the intent was found unconfirmed (an earlier attempt may have gone out).
   */
  private async deliver(account: AccountEntity, run: RunRow, kind: SendKind, intent: SendRow, uncertain: boolean): Promise<SendOutcome> {
    const client = this.graph.client(account, 'background');
    try {
      if (kind === 'public_reply') {
        const res = await client.replyToComment(String(intent.payload.comment_id), String(intent.payload.text));
        await this.confirmPublicReply(account, run, intent.id, String(intent.payload.comment_id), res.id);
      } else if (kind === 'private_reply') {
        const res = await client.sendPrivateReply(run.comment_id!, intent.payload.message as GraphMessage, { waitForBudget: false });
        await this.sends.done(intent.id, res.message_id);
        await this.runs.recordCommentReply(account.id, run.comment_id!, run.media_id, 'private_reply', res.message_id, run.id);
      } else {
        const res = await client.sendMessage({ id: run.contact_ig_id }, intent.payload.message as GraphMessage);
        await this.sends.done(intent.id, res.message_id);
      }
      return 'sent';
    } catch (err) {
      // Another replica took the last slot between the check and the send: nothing went out, the intent stays and is retried.
      if (err instanceof BudgetExhaustedError) throw deferred(err.waitMs);
      if (kind === 'private_reply' && err instanceof GraphApiError && err.privateReplyRefused) {
        const windowClosed = /outside of allowed window/i.test(err.detail);
        if (windowClosed) {
          await this.sends.failed(intent.id, err.detail);
          return 'window_closed';
        }
        if (uncertain) {
          // Our earlier attempt went out (the platform allows one private reply per comment).
          await this.sends.done(intent.id, null, 'confirmed by the platform refusing a second private reply');
          await this.runs.recordCommentReply(account.id, run.comment_id!, run.media_id, 'private_reply', null, run.id);
          return 'already';
        }
        await this.sends.failed(intent.id, err.detail);
        return 'refused';
      }
      // A refused template stays an intent: the caller sends the text version under the same intent.
      if (err instanceof GraphApiError && !err.retryable && !(err.templateRejected && isTemplate(intent.payload.message))) await this.sends.failed(intent.id, err.detail);
      throw err;
    }
  }

  private async confirmPublicReply(account: AccountEntity, run: RunRow, sendId: string, commentId: string, replyId: string): Promise<void> {
    await this.sends.done(sendId, replyId);
    await this.runs.setPublicReplyId(run.id, replyId);
    await this.runs.recordCommentReply(account.id, run.comment_id ?? commentId, run.media_id, 'public_reply', replyId, run.id);
  }

  private async graphMessage(account: AccountEntity, a: AutomationEntity, run: RunRow, msg: MachineMessage): Promise<GraphMessage> {
    if (msg.kind === 'public_reply') return { text: msg.text };
    if ('postback' in msg && msg.postback) return buttonTemplate(msg.text, [{ type: 'postback', title: msg.postback.title, payload: msg.postback.payload }]);
    if ('links' in msg && msg.links.length > 0) {
      const buttons: GraphButton[] = [];
      for (const l of msg.links) buttons.push({ type: 'web_url', title: l.title, url: await this.linkUrl(account, a, run, l.url, l.index) });
      return buttonTemplate(msg.text, buttons);
    }
    return { text: msg.text };
  }

  /** `${PUBLIC_BASE_URL}/r/{code}` with track_clicks (and a public base URL), else the target itself. */
  private async linkUrl(account: AccountEntity, a: AutomationEntity, run: RunRow, url: string, index: number): Promise<string> {
    if (!a.track_clicks || !account.public_base_url) return url;
    const code = await this.clicks.linkToken(account.id, a.id, run.id, index, url, () => newClickCode());
    return `${account.public_base_url.replace(/\/$/, '')}/r/${code}`;
  }
}
