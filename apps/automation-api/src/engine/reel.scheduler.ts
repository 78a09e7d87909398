import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { AutomationsService } from '../automations/automations.service';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { EventsService } from '../events/events.service';
import type { GraphComment } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { ReelsService } from '../reels/reels.service';
import { InboundRepository, type NewInbound } from './inbound.repository';
import { InboundWorker } from './inbound.worker';
import { decideReel } from './reel-matcher';

const MAX_BACKFILL_COMMENTS = 500;

/**
 * The next_post scheduler. Every AUTOMATION_SCHEDULER_INTERVAL_MS each replica tries to claim the
 * accounts that have waiting automations (claimDue with a lease on the account row of about one
 * interval, so one replica per account and interval does the work), lists the newest posts and
 * decides per waiting automation: attach, suggest, expire or wait (reel-matcher.ts). Attached
 * automations whose reel comments were not looked at yet get them queued as work items, so the
 * comments that arrived while waiting are answered (idempotently: one run per comment).
 */
@Injectable()
export class ReelScheduler extends PollingWorker {
  protected readonly logger = new Logger(ReelScheduler.name);

  constructor(
    private readonly automations: AutomationsService,
    private readonly inbound: InboundRepository,
    private readonly accounts: AccountsService,
    private readonly graph: GraphService,
    private readonly events: EventsService,
    private readonly worker: InboundWorker,
    private readonly clock: Clock,
    private readonly reels: ReelsService,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.AUTOMATION_SCHEDULER_INTERVAL_MS);
    // A reel the publisher attached to its automation: its earlier comments are backfilled at once.
    reels.onReelAttached(() => this.wake());
  }

  /** One pass over the accounts due now; resolves with how many accounts it claimed. */
  async tick(): Promise<number> {
    const leaseSeconds = Math.max(0.02, (this.config.AUTOMATION_SCHEDULER_INTERVAL_MS * 0.9) / 1000);
    const claimed = await this.automations.claimReelAccounts(50, leaseSeconds);
    for (const id of claimed) {
      const account = await this.accounts.findById(id);
      if (!account) continue;
      try {
        await this.checkAccount(account);
      } catch (err) {
        this.logger.warn(`next_post check of account ${id}: ${(err as Error).message}`);
      }
    }
    return claimed.length;
  }

  private async checkAccount(account: AccountEntity): Promise<void> {
    const automations = await this.automations.nextPost(account.id);
    // An automation bound to a scheduled reel (reels.automation_id) waits for exactly that reel: the
    // reel publisher attaches it by media id, never a caption guess, and it does not expire meanwhile.
    const bound = await this.reels.boundAutomationIds(account.id);
    const waiting = automations.filter((a) => a.reel_status === 'waiting' && !bound.has(a.id));
    const now = this.clock.now();
    if (waiting.length && account.access_token) {
      const media = await this.graph.client(account, 'background').listRecentMedia(25);
      for (const a of waiting) {
        const decision = decideReel(a, media, now);
        const base = { automation_id: a.id, username: null };
        if (decision.kind === 'attach') {
          const ok = await this.automations.attachReel(a.id, decision.reel.id, now);
          if (ok) await this.events.record(account.id, { ...base, kind: 'reel_attached', text: decision.reel.permalink ?? null, ref: decision.reel.id });
        } else if (decision.kind === 'suggest') {
          if (a.reel_suggestion?.media_id !== decision.reel.id) {
            const suggestion = { media_id: decision.reel.id, permalink: decision.reel.permalink ?? null, reason: decision.reason, at: now.toISOString() };
            if (await this.automations.suggestReel(a.id, suggestion)) {
              await this.events.record(account.id, { ...base, kind: 'reel_suggested', text: decision.reason, ref: decision.reel.id });
            }
          }
        } else if (decision.kind === 'expire') {
          if (await this.automations.expireReel(a.id, now)) await this.events.record(account.id, { ...base, kind: 'reel_expired', text: 'no matching reel within 24 hours' });
        }
      }
    }
    for (const a of await this.automations.reelsToBackfill(account.id)) await this.backfill(account, a);
  }

  /** Queues the comments already under the attached reel (each answered once, like a webhook). */
  private async backfill(account: AccountEntity, a: { id: number; reel_media_id: string }): Promise<void> {
    const client = this.graph.client(account, 'background');
    const comments: GraphComment[] = [];
    let after: string | undefined;
    do {
      const page = await client.listComments(a.reel_media_id!, { limit: 50, after });
      comments.push(...page.data);
      after = page.after;
    } while (after && comments.length < MAX_BACKFILL_COMMENTS);
    const own = account.ig_user_id;
    const items = comments.filter((c) => c.from?.id && c.from.id !== own);
    const counted = await this.inbound.existingDedupKeys(items.map((c) => `comment:${c.id}`));
    const rows: NewInbound[] = items.map((c) => ({
      account_id: account.id,
      dedup_key: `backfill:${a.id}:${c.id}`,
      kind: 'backfill',
      subject: `${account.id}:${c.from!.id}`,
      payload: {
        comment_id: c.id,
        media_id: a.reel_media_id,
        text: c.text ?? '',
        from: { id: c.from!.id, username: c.from!.username ?? c.username ?? null },
        parent_id: null,
        entry_id: own,
        automation_id: a.id,
        counted: counted.has(`comment:${c.id}`),
      },
    }));
    await this.inbound.insert(rows);
    await this.automations.markReelBackfilled(a.id);
    if (rows.length) this.worker.wake();
  }
}
