import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { withTransaction } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AutomationLinkClicked, Outbox } from '@platform/messaging';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { EngineRepository } from '../engine/engine.repository';
import { EventsService } from '../events/events.service';

/**
 * The click redirect. On the response path: one indexed lookup of the code and one insert of the
 * click (durable), then the 302. Right after the answer the click is counted in one transaction —
 * run counter, contact tag `link_clicked` (source `link_clicked:<date>`), Event, outbox event
 * `automation.link_clicked` — and marked counted; clicks left uncounted by a stopped process are
 * counted by a sweep a few seconds later (on any replica; a click is counted once).
 */
@Injectable()
export class ClicksService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClicksService.name);
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repo: EngineRepository,
    private readonly events: EventsService,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep().catch((err) => this.logger.warn(`click sweep: ${(err as Error).message}`)), Math.max(1_000, this.config.AUTOMATION_POLL_MS * 5));
    this.timer.unref?.();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  /** Stores the click and answers the target; the counting follows off the response path. */
  async click(code: string, ip: string | null, userAgent: string | null): Promise<string> {
    const target = /^[0-9A-Za-z]{10,64}$/.test(code) ? await this.repo.clickTarget(code) : null;
    if (!target) throw new ApiError(404, 'NOT_FOUND', 'Unknown link', { suggestion: 'The link may be mistyped; ask the sender for a new one.' });
    const clickId = await this.repo.insertClick(target, this.clock.now(), ip, userAgent);
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.count(clickId))
      .catch((err) => this.logger.warn(`click ${clickId} not counted yet (the sweep retries): ${(err as Error).message}`))
      .finally(() => this.inFlight.delete(job));
    this.inFlight.add(job);
    return target.url;
  }

  /** Counts one stored click (no-op when it was counted already). */
  async count(clickId: string): Promise<void> {
    await withTransaction(this.repo.ds, async (m) => {
      const target = await this.repo.takeUncountedClick(m, clickId);
      if (!target?.run_id) return;
      const at = new Date(target.clicked_at);
      const counted = await this.repo.countClick(m, target.run_id, at);
      if (!counted) return;
      const { run, first } = counted;
      await this.repo.tagContact(m, target.account_id, run.contact_ig_id, ['link_clicked'], `link_clicked:${at.toISOString().slice(0, 10)}`);
      await this.events.record(target.account_id, { kind: 'link_clicked', automation_id: run.automation_id, run_id: run.id, username: run.username, text: target.url, ref: target.token }, m);
      const [acc] = await m.query(`SELECT email_public_key FROM ${this.repo.s}.accounts WHERE id = $1`, [target.account_id]);
      const contact = await this.repo.contact(target.account_id, run.contact_ig_id, m);
      await this.outbox.enqueue(m, AutomationLinkClicked, {
        accountId: String(target.account_id),
        emailPublicKey: acc?.email_public_key ?? null,
        igUserId: run.contact_ig_id,
        igUsername: contact?.username ?? run.username,
        automationId: String(run.automation_id),
        runId: String(run.id),
        email: contact?.email ?? run.email,
        linkUrl: target.url,
        linkIndex: target.position,
        firstClick: first,
      });
    });
  }

  /** Counts clicks a stopped process left uncounted. */
  async sweep(): Promise<void> {
    for (const id of await this.repo.uncountedClicks(5, 100)) await this.count(id);
  }
}
