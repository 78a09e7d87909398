import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { BillingService } from '../billing/billing.service';
import { EventsService } from '../events/events.service';
import { AUTOMATION_DEFAULTS, COMMENT_ONLY_FIELDS, FOLLOW_GATE_OPENING_BUTTON, MASKED_SECRET } from './automation.defaults';
import {
  buildMessagesPreview,
  configurationNotes,
  isLive,
  toAutomationDto,
  toSummary,
} from './automation.presenter';
import { AutomationsRepository, type FunnelCounts } from './automations.repository';
import type { AutomationInputDto } from './dto/automation-input.dto';
import { FUNNEL_COUNTERS, type AutomationDto, type AutomationResultDto, type AutomationSummaryDto, type FunnelDto } from './dto/automation.dto';
import type { AutomationEntity, Origin, ReelSuggestion, Trigger } from './entities/automation.entity';

export interface CreateOptions {
  origin?: Origin | null;
  imported_from?: string | null;
  transition_mode?: boolean;
}

function invalid(message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message);
}

function notFound(id: number): ApiError {
  return new ApiError(404, 'NOT_FOUND', `Automation ${id} not found`, { suggestion: 'GET /api/v1/automations lists the automations of this account.' });
}

function conflict(message: string): ApiError {
  return new ApiError(409, 'CONFLICT', message);
}

/** Whether a comment-only field holds something other than its "off" value. */
function setsCommentOnlyField(field: (typeof COMMENT_ONLY_FIELDS)[number], value: unknown): boolean {
  if (value === undefined) return false;
  if (field === 'skip_if_answered') return true;
  if (value === null || value === false) return false;
  return !(Array.isArray(value) && value.length === 0);
}

@Injectable()
export class AutomationsService {
  constructor(
    private readonly automations: AutomationsRepository,
    private readonly events: EventsService,
    private readonly transactions: Transactions,
    private readonly billing: BillingService,
  ) {}

  async list(accountId: number): Promise<AutomationSummaryDto[]> {
    const [rows, counters] = await Promise.all([this.automations.list(accountId), this.automations.runCounters(accountId)]);
    return rows.map((a) => toSummary(a, counters.get(a.id)));
  }

  /** Every automation of the account as rows (posts, preview, comments). */
  entities(accountId: number): Promise<AutomationEntity[]> {
    return this.automations.list(accountId);
  }

  async entity(accountId: number, id: number): Promise<AutomationEntity> {
    const a = await this.automations.find(accountId, id);
    if (!a) throw notFound(id);
    return a;
  }

  async get(accountId: number, id: number): Promise<AutomationDto> {
    return toAutomationDto(await this.entity(accountId, id));
  }

  /** Creates a draft with its Event; inside an open transaction (an import) it joins it. */
  async create(accountId: number, input: AutomationInputDto, opts: CreateOptions = {}): Promise<AutomationResultDto> {
    const trigger: Trigger = input.trigger ?? 'comment';
    this.checkInput(input, trigger);
    const entity = this.automations.build({ ...AUTOMATION_DEFAULTS, account_id: accountId, status: 'draft' } as Partial<AutomationEntity>);
    this.apply(entity, input, true);
    entity.origin = opts.origin ?? null;
    entity.imported_from = opts.imported_from ?? null;
    entity.transition_mode = opts.transition_mode ?? false;
    this.checkCombination(entity);
    const saved = await this.transactions.transaction(async () => {
      await this.transactions.lock(`automations-of-account:${accountId}`);
      await this.billing.assertAutomationAllowed(accountId);
      const result = await this.automations.save(entity);
      await this.events.record(accountId, { kind: 'automation_created', automation_id: result.id, text: `${result.name} (${opts.origin ?? 'manual'})` });
      return result;
    });
    return this.result(accountId, saved);
  }

  async update(accountId: number, id: number, input: AutomationInputDto): Promise<AutomationResultDto> {
    const saved = await this.transactions.transaction(async () => {
      const entity = await this.automations.findForUpdate(accountId, id);
      if (!entity) throw notFound(id);
      const trigger = input.trigger ?? entity.trigger;
      this.checkInput(input, trigger);
      this.apply(entity, input, false);
      // After go_live the switch and the status move together: active false pauses, active true resumes.
      if (input.active !== undefined && entity.status !== 'draft') entity.status = input.active ? 'active' : 'paused';
      this.checkCombination(entity);
      const result = await this.automations.save(entity);
      await this.events.record(accountId, { kind: 'automation_updated', automation_id: id, text: Object.keys(input).join(', ') });
      return result;
    });
    return this.result(accountId, saved);
  }

  async remove(accountId: number, id: number): Promise<void> {
    await this.transactions.transaction(async () => {
      const entity = await this.automations.findForUpdate(accountId, id);
      if (!entity) throw notFound(id);
      await this.automations.remove(accountId, id);
      await this.events.record(accountId, { kind: 'automation_deleted', text: `${entity.name} (#${id})`, ref: String(id) });
    });
  }

  /** draft → active: the automation starts answering. */
  goLive(accountId: number, id: number): Promise<AutomationDto> {
    return this.transition(accountId, id, 'go_live', (a) => {
      if (a.status !== 'draft') throw conflict(`Automation ${id} is ${a.status}, not draft: go_live applies to drafts${a.status === 'paused' ? ' (use resume)' : ''}`);
      a.status = 'active';
      a.active = true;
      a.went_live_at = new Date();
    });
  }

  /** active → paused (idempotent on paused). */
  pause(accountId: number, id: number): Promise<AutomationDto> {
    return this.transition(accountId, id, 'paused', (a) => {
      if (a.status === 'draft') throw conflict(`Automation ${id} is a draft: nothing to pause (use go_live)`);
      a.status = 'paused';
      a.active = false;
    });
  }

  /** paused → active (idempotent on active). */
  resume(accountId: number, id: number): Promise<AutomationDto> {
    return this.transition(accountId, id, 'resumed', (a) => {
      if (a.status === 'draft') throw conflict(`Automation ${id} is a draft: use go_live`);
      a.status = 'active';
      a.active = true;
    });
  }

  /** Ends transition mode of an imported automation: follower check, button, email and reminder apply again. */
  finishMigration(accountId: number, id: number): Promise<AutomationDto> {
    return this.transition(accountId, id, 'migration_finished', (a) => {
      if (!a.transition_mode) throw conflict(`Automation ${id} is not in transition mode`);
      a.transition_mode = false;
    });
  }

  /** Confirms the suggested reel of a waiting next_post automation. */
  attach(accountId: number, id: number, mediaId?: string): Promise<AutomationDto> {
    return this.transition(accountId, id, 'reel_attached', (a) => {
      if (a.reel_status !== 'waiting' || !a.reel_suggestion) {
        throw conflict(`Automation ${id} has no reel suggestion to confirm (reel_status: ${a.reel_status ?? 'null'})`);
      }
      if (mediaId !== undefined && mediaId !== a.reel_suggestion.media_id) {
        throw conflict(`media_id ${mediaId} is not the suggested reel ${a.reel_suggestion.media_id}`);
      }
      a.reel_media_id = a.reel_suggestion.media_id;
      a.media_ids = [a.reel_suggestion.media_id];
      a.reel_status = 'attached';
      a.reel_attached_at = new Date();
      a.pending_next = false;
      a.reel_suggestion = null;
    });
  }

  // ── for the engine and the reel workers (no 404: they skip what is gone) ─────────────────────

  /** The account's automation, or null. */
  find(accountId: number, id: number): Promise<AutomationEntity | null> {
    return this.automations.find(accountId, id);
  }

  findById(id: number): Promise<AutomationEntity | null> {
    return this.automations.findById(id);
  }

  /** The account's live automations of a trigger (the engine's rule lookup). */
  live(accountId: number, trigger: Trigger): Promise<AutomationEntity[]> {
    return this.automations.live(accountId, trigger);
  }

  webhookSecret(id: number): Promise<string | null> {
    return this.automations.webhookSecret(id);
  }

  /** Accounts with next_post automations to look after, leased to this replica. */
  claimReelAccounts(limit: number, leaseSeconds: number): Promise<number[]> {
    return this.automations.claimReelAccounts(limit, leaseSeconds);
  }

  nextPost(accountId: number): Promise<AutomationEntity[]> {
    return this.automations.nextPost(accountId);
  }

  /** Attaches a waiting automation to its reel; false when it is no longer waiting. */
  attachReel(id: number, mediaId: string, at: Date): Promise<boolean> {
    return this.automations.attachReel(id, mediaId, at);
  }

  suggestReel(id: number, suggestion: ReelSuggestion): Promise<boolean> {
    return this.automations.suggestReel(id, suggestion);
  }

  expireReel(id: number, at: Date): Promise<boolean> {
    return this.automations.expireReel(id, at);
  }

  reelsToBackfill(accountId: number): Promise<Array<{ id: number; reel_media_id: string }>> {
    return this.automations.reelsToBackfill(accountId);
  }

  markReelBackfilled(id: number): Promise<void> {
    return this.automations.markReelBackfilled(id);
  }

  async funnel(accountId: number, id: number): Promise<FunnelDto> {
    const a = await this.entity(accountId, id);
    const counts = await this.automations.funnelCounts(accountId, id);
    return funnelOf(a, counts.get(id));
  }

  /** One funnel per automation, then the total over all of them (id null). */
  async funnels(accountId: number): Promise<FunnelDto[]> {
    const [rows, counts] = await Promise.all([this.automations.list(accountId), this.automations.funnelCounts(accountId)]);
    const items = rows.map((a) => funnelOf(a, counts.get(a.id)));
    const total = Object.fromEntries(FUNNEL_COUNTERS.map((k) => [k, 0])) as FunnelCounts;
    for (const c of counts.values()) for (const k of FUNNEL_COUNTERS) total[k] += c[k];
    items.push({ id: null, name: 'all automations', trigger: 'all', active: rows.filter(isLive).length, ...total });
    return items;
  }

  private async transition(accountId: number, id: number, kind: string, change: (a: AutomationEntity) => void): Promise<AutomationDto> {
    const saved = await this.transactions.transaction(async () => {
      const a = await this.automations.findForUpdate(accountId, id);
      if (!a) throw notFound(id);
      change(a);
      const result = await this.automations.save(a);
      await this.events.record(accountId, { kind, automation_id: id, text: a.name });
      return result;
    });
    return toAutomationDto(saved);
  }

  private async result(accountId: number, a: AutomationEntity): Promise<AutomationResultDto> {
    const others = await this.automations.list(accountId);
    return { automation: toAutomationDto(a), preview: buildMessagesPreview(a, 'username'), notes: configurationNotes(a, others) };
  }

  /** Rules on the request itself (beyond the DTO's per-field rules). */
  private checkInput(input: AutomationInputDto, trigger: Trigger): void {
    if (trigger !== 'comment') {
      for (const field of COMMENT_ONLY_FIELDS) {
        if (setsCommentOnlyField(field, input[field])) {
          throw invalid(`${field} is only allowed for trigger comment (trigger is ${trigger})`);
        }
      }
    }
  }

  /** Rules on the merged result. */
  private checkCombination(a: AutomationEntity): void {
    const attachedReel = a.reel_status === 'attached' && a.media_ids?.length === 1 && a.media_ids[0] === a.reel_media_id;
    if (a.next_post && a.media_ids && a.media_ids.length && !attachedReel) {
      throw invalid('media_ids must be empty with next_post: the automation attaches itself to the next reel');
    }
    if (!a.next_post && a.reel_caption) throw invalid('reel_caption is only allowed with next_post: true');
    if (!a.next_post && a.reel_publish_at) throw invalid('reel_publish_at is only allowed with next_post: true');
  }

  /** Copies the request onto the row, with the defaults that depend on other fields. */
  private apply(a: AutomationEntity, input: AutomationInputDto, creating: boolean): void {
    const assign = <K extends keyof AutomationInputDto & keyof AutomationEntity>(key: K) => {
      if (input[key] !== undefined) (a as unknown as Record<string, unknown>)[key] = input[key];
    };
    for (const key of [
      'name', 'active', 'trigger', 'media_ids', 'next_post', 'reel_caption', 'keywords', 'match_mode', 'exclude_keywords',
      'public_replies', 'opening_text', 'opening_button', 'follow_gate', 'gate_text', 'gate_button', 'link_url', 'link_text',
      'link_button', 'follow_up_text', 'follow_up_minutes', 'email_gate', 'email_text', 'email_retry_text', 'email_skip_if_known',
      'webhook_url', 'track_clicks', 'tags', 'once_per_user', 'priority', 'notes', 'skip_if_answered',
    ] as const) {
      assign(key);
    }
    if (input.extra_links !== undefined) a.extra_links = input.extra_links.map((l) => ({ title: l.title, url: l.url }));
    if (input.reel_publish_at !== undefined) a.reel_publish_at = input.reel_publish_at === null ? null : new Date(input.reel_publish_at);
    if (input.webhook_secret !== undefined && input.webhook_secret !== MASKED_SECRET) a.webhook_secret = input.webhook_secret;
    if (input.media_ids !== undefined && input.media_ids !== null) a.media_ids = [...new Set(input.media_ids)];

    // The opening button defaults to "Send link" with the follower check (the tap gives the consent the check needs).
    if (input.opening_button === undefined && a.follow_gate && !a.opening_button && (creating || input.follow_gate === true)) {
      a.opening_button = FOLLOW_GATE_OPENING_BUTTON;
    }
    if (a.trigger !== 'comment') {
      a.media_ids = null;
      a.next_post = false;
      a.reel_caption = null;
      a.reel_publish_at = null;
      a.public_replies = [];
    }
    // next_post state: waiting until the reel attaches; cleared when next_post is turned off.
    if (!a.next_post) {
      a.pending_next = false;
      a.reel_status = null;
      a.reel_media_id = null;
      a.reel_attached_at = null;
      a.reel_expired_at = null;
      a.reel_suggestion = null;
    } else if (creating || a.reel_status === null || (a.reel_status === 'expired' && (input.next_post || input.reel_caption !== undefined || input.reel_publish_at !== undefined))) {
      if (a.reel_media_id && a.media_ids?.length === 1 && a.media_ids[0] === a.reel_media_id) a.media_ids = [];
      a.pending_next = true;
      a.reel_status = 'waiting';
      a.reel_media_id = null;
      a.reel_attached_at = null;
      a.reel_expired_at = null;
      a.reel_suggestion = null;
    }
  }
}

/** Counters of steps the automation does not have are null unless runs reached them anyway (configuration changed later). */
export function funnelOf(a: AutomationEntity, counts: FunnelCounts | undefined): FunnelDto {
  const c = counts ?? (Object.fromEntries(FUNNEL_COUNTERS.map((k) => [k, 0])) as FunnelCounts);
  const hasLink = Boolean(a.link_url) || a.extra_links.length > 0;
  const applies: Record<(typeof FUNNEL_COUNTERS)[number], boolean> = {
    triggered: true,
    dm_sent: true,
    button_tapped: Boolean(a.opening_button),
    gated: a.follow_gate,
    gate_passed: a.follow_gate,
    email_asked: a.email_gate,
    email_captured: a.email_gate,
    email_expired: a.email_gate,
    link_sent: hasLink,
    clicked: hasLink && a.track_clicks,
    followed_up: a.follow_up_minutes > 0,
    errors: true,
    skipped: true,
    skipped_other_tool: a.trigger === 'comment',
    read_fallback: Boolean(a.opening_button) || a.follow_gate,
    human_takeover: true,
  };
  const counters = Object.fromEntries(FUNNEL_COUNTERS.map((k) => [k, applies[k] || c[k] > 0 ? c[k] : null])) as Record<
    (typeof FUNNEL_COUNTERS)[number],
    number | null
  >;
  return { id: a.id, name: a.name, trigger: a.trigger, active: isLive(a), ...counters };
}
