import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ProjectDirectory } from '../access/project-directory.service';
import { newId } from '../common/ids';
import { EmailApiConfig } from '../config';
import { SuppressionsService } from '../suppressions/suppressions.service';
import type { MailEventFlag, MailEventInput, RecordedMailEvent } from './mail-event';
import { MailEventsRepository, type Hit } from './mail-events.repository';

export type { MailEventFlag, MailEventInput, MailEventType, RecordedMailEvent } from './mail-event';

export interface CampaignEngagement {
  opens: { total: number; unique: number; human: number; humanUnique: number; privacyProxy: number };
  clicks: { total: number; unique: number; human: number; humanUnique: number; scanner: number };
}

/** Rates of a campaign: human unique opens and clicks per delivered mail, human unique clicks per human unique open (0 when the base is 0). */
export function engagementRates(e: CampaignEngagement, delivered: number): { openRate: number; clickRate: number; clicksPerOpen: number } {
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : 0);
  return { openRate: ratio(e.opens.humanUnique, delivered), clickRate: ratio(e.clicks.humanUnique, delivered), clicksPerOpen: ratio(e.clicks.humanUnique, e.opens.humanUnique) };
}

const DAY = 24 * 60 * 60 * 1000;
/** Opens and clicks are written at most this long after their request, or when this many wait. */
const TRACKING_FLUSH_MS = 20;
const TRACKING_BATCH = 500;
/** Mails whose links the click redirect keeps in memory. */
const LINK_CACHE_SIZE = 10_000;
/** The window of soft-bounce escalation and of the bounce and complaint rates. */
export const REPUTATION_WINDOW_DAYS = 30;

/**
 * The append-only log of what happened to mail: every send, delivery, open, click, bounce,
 * complaint, unsubscribe and inbound message, written once per idempotency key. Recording an event
 * also does what it implies, in the same transaction:
 * - the mail's columns (`opened_at`, `clicked_at`, `delivered_at`, `bounced_at`, `complained_at`)
 *   take the first such event (the repository's statement);
 * - a hard bounce suppresses the address (`hard_bounce`), a complaint too (`complaint`), an
 *   unsubscribe too (`unsubscribe`); `SOFT_BOUNCE_LIMIT` soft bounces of an address within 30 days
 *   suppress it as a hard bounce (source `soft-bounce-escalation`);
 * - a bounce or complaint checks the project's rates over the last 30 days: with at least
 *   `PAUSE_MIN_SENDS` sends, hard bounces ≥ `PAUSE_BOUNCE_RATE` of them or complaints ≥
 *   `PAUSE_COMPLAINT_RATE` pause the project for review (disabled, reason `paused for review: …`).
 */
@Injectable()
export class MailEventsService implements OnModuleDestroy {
  private readonly logger = new Logger('MailEvents');
  private hits: Hit[] = [];
  private readonly linkCache = new Map<string, string[]>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: MailEventsRepository,
    private readonly suppressions: SuppressionsService,
    private readonly projects: ProjectDirectory,
    private readonly transactions: Transactions,
    private readonly config: EmailApiConfig,
  ) {}

  /**
   * Records the event once. `recorded` is false when the key was recorded before, or when the
   * event belongs to no project (an unknown mail, the platform's own mail).
   */
  async record(input: MailEventInput): Promise<{ recorded: boolean; eventId: string | null; projectId: string | null; event: RecordedMailEvent | null }> {
    if ((input.type === 'bounce') !== (input.bounceType !== undefined)) throw new Error('bounceType is required for bounces and only for them');
    // Opens and clicks have no consequences: one statement, its own transaction.
    const consequences = input.type === 'bounce' || input.type === 'complaint' || input.type === 'unsubscribe';
    const event = consequences ? await this.transactions.transaction(() => this.recordWithConsequences(input)) : await this.events.insert(newId('mev'), input);
    return { recorded: event !== null, eventId: event?.id ?? null, projectId: event?.projectId ?? null, event };
  }

  private async recordWithConsequences(input: MailEventInput): Promise<RecordedMailEvent | null> {
    const event = await this.events.insert(newId('mev'), input);
    if (!event || !event.recipient) return event;
    const { projectId, recipient } = event;
    if (event.type === 'bounce' && event.bounceType === 'hard') {
      await this.suppressions.suppress(projectId, recipient, 'hard_bounce', input.source);
    } else if (event.type === 'bounce') {
      const since = new Date(event.createdAt.getTime() - REPUTATION_WINDOW_DAYS * DAY);
      if ((await this.events.softBounces(projectId, recipient, since)) >= this.config.SOFT_BOUNCE_LIMIT) {
        await this.suppressions.suppress(projectId, recipient, 'hard_bounce', 'soft-bounce-escalation');
      }
    } else if (event.type === 'complaint') {
      await this.suppressions.suppress(projectId, recipient, 'complaint', input.source);
    } else if (event.type === 'unsubscribe') {
      await this.suppressions.suppress(projectId, recipient, 'unsubscribe', input.source);
    }
    if (event.type === 'bounce' || event.type === 'complaint') await this.checkReputation(projectId);
    return event;
  }

  /**
   * The open pixel was fetched. Hot path: nothing waits for the database; the hit joins the buffer,
   * written in batches (one statement per batch, see flushTracking). The agent is kept in the
   * event's data (at most 200 characters).
   */
  trackOpen(emailId: string, flag: MailEventFlag | null, userAgent: string | undefined): void {
    this.buffer({ id: newId('mev'), emailId, type: 'open', index: 0, flag, userAgent: userAgent?.slice(0, 200) ?? null, method: null, at: Date.now() });
  }

  /**
   * The link of a tracked click; null when the mail has no link at this index. A mail's links never
   * change once it is written, so they are kept in memory for the next clicks (the last
   * LINK_CACHE_SIZE mails read); a miss is one prepared read.
   */
  async clickTarget(emailId: string, index: number): Promise<string | null> {
    let links = this.linkCache.get(emailId);
    if (!links) {
      links = (await this.events.links(emailId)) ?? [];
      if (this.linkCache.size >= LINK_CACHE_SIZE) this.linkCache.delete(this.linkCache.keys().next().value!);
      this.linkCache.set(emailId, links);
    }
    return links[index] ?? null;
  }

  /**
   * clickTarget's answer when the mail's links are in memory, without a promise (the click redirect
   * answers most clicks in the same turn); undefined when they are not.
   */
  knownClickTarget(emailId: string, index: number): string | null | undefined {
    const links = this.linkCache.get(emailId);
    return links === undefined ? undefined : (links[index] ?? null);
  }

  /** A tracked link was followed: buffered as trackOpen, with the request's method. */
  trackClick(emailId: string, index: number, flag: MailEventFlag | null, userAgent: string | undefined, method: string): void {
    this.buffer({ id: newId('mev'), emailId, type: 'click', index, flag, userAgent: userAgent?.slice(0, 200) ?? null, method, at: Date.now() });
  }

  /**
   * Writes the buffered opens and clicks now (tests, shutdown). Batches are written one after the
   * other; a batch the database refuses is logged and dropped (its requests were answered already).
   */
  flushTracking(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.hits;
    this.hits = [];
    if (batch.length) {
      this.writing = this.writing.then(() =>
        this.events.writeHits(batch, this.config.PREFETCH_WINDOW_SECONDS, this.config.SCANNER_WINDOW_SECONDS).then(
          () => undefined,
          (err: unknown) => this.logger.warn(`${batch.length} opens and clicks not recorded: ${(err as Error).message}`),
        ),
      );
    }
    return this.writing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flushTracking();
  }

  private buffer(hit: Hit): void {
    this.hits.push(hit);
    if (this.hits.length >= TRACKING_BATCH) void this.flushTracking();
    else this.timer ??= setTimeout(() => void this.flushTracking(), TRACKING_FLUSH_MS);
  }

  /**
   * Opens and clicks of campaigns, by campaign id (every id answered, zeros when nothing happened).
   * Human figures leave out privacy-proxy opens and scanner clicks (see the README's rules).
   */
  async engagement(campaignIds: string[]): Promise<Map<string, CampaignEngagement>> {
    const rows = await this.events.engagement(campaignIds);
    const byId = new Map(rows.map((r) => [r.campaign_id, r]));
    return new Map(
      campaignIds.map((id) => {
        const r = byId.get(id);
        return [
          id,
          {
            opens: { total: r?.opens ?? 0, unique: r?.unique_opens ?? 0, human: r?.human_opens ?? 0, humanUnique: r?.human_unique_opens ?? 0, privacyProxy: r?.privacy_proxy_opens ?? 0 },
            clicks: { total: r?.clicks ?? 0, unique: r?.unique_clicks ?? 0, human: r?.human_clicks ?? 0, humanUnique: r?.human_unique_clicks ?? 0, scanner: r?.scanner_clicks ?? 0 },
          },
        ];
      }),
    );
  }

  /** Pauses the project when its hard-bounce or complaint rate over 30 days crosses its threshold. */
  private async checkReputation(projectId: string): Promise<void> {
    const r = await this.events.reputation(projectId, new Date(Date.now() - REPUTATION_WINDOW_DAYS * DAY));
    if (r.sends < this.config.PAUSE_MIN_SENDS) return;
    const bounceRate = r.hardBounces / r.sends;
    const complaintRate = r.complaints / r.sends;
    let reason: string | null = null;
    if (bounceRate >= this.config.PAUSE_BOUNCE_RATE) reason = `paused for review: hard-bounce rate ${(bounceRate * 100).toFixed(2)}% of ${r.sends} sends in 30 days (threshold ${this.config.PAUSE_BOUNCE_RATE * 100}%)`;
    else if (complaintRate >= this.config.PAUSE_COMPLAINT_RATE) reason = `paused for review: complaint rate ${(complaintRate * 100).toFixed(2)}% of ${r.sends} sends in 30 days (threshold ${this.config.PAUSE_COMPLAINT_RATE * 100}%)`;
    if (reason && (await this.projects.pauseForReview(projectId, reason))) this.logger.warn(`project ${projectId} ${reason}`);
  }
}
