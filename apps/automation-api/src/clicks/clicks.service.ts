import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { OutboxRelay } from '@platform/messaging';
import { SERVICE_NAME } from '@platform/platform';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { ClickWriter } from './click-writer';
import { ClicksRepository, newClickEnvelope, type CountedClick } from './clicks.repository';

/** Tokens are 12 base62 characters (newClickCode, engine/engine-helpers.ts); anything else cannot be a link and costs no query. */
const TOKEN = /^[0-9A-Za-z]{10,64}$/;

/**
 * The click redirect. Each click is stored and counted by one SQL statement before the 302 —
 * run counter, contact tag `link_clicked` (source `link_clicked:<date>`), Event, outbox event
 * `automation.link_clicked` — so an answered click is always counted, and the relay is woken to
 * publish the event. Concurrent clicks share one statement and one commit (ClickWriter). A sweep counts clicks that an earlier version of the service stored without
 * counting (it counted after the answer), once, on any replica.
 */
@Injectable()
export class ClicksService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClicksService.name);
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly repo: ClicksRepository,
    private readonly writer: ClickWriter,
    private readonly relay: OutboxRelay,
    private readonly clock: Clock,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((err) => this.logger.warn(`click sweep: ${(err as Error).message}`))
        .finally(() => (this.sweeping = undefined));
    }, Math.max(1_000, this.config.AUTOMATION_POLL_MS * 5));
    this.timer.unref?.();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  /** Stores and counts the click, answers the target URL; unknown code → 404. */
  async click(code: string, ip: string | null, userAgent: string | null): Promise<string> {
    const counted = TOKEN.test(code) ? await this.writer.click({ token: code, at: this.clock.now(), ip, userAgent, envelope: newClickEnvelope(this.serviceName) }) : null;
    if (!counted) throw new ApiError(404, 'NOT_FOUND', 'Unknown link', { suggestion: 'The link may be mistyped; ask the sender for a new one.' });
    this.published(counted);
    return counted.url;
  }

  /** The tracked link of a run's button, created once (the same token when the link is sent again). */
  linkToken(accountId: number, automationId: number, runId: string, position: number, url: string, newToken: () => string): Promise<string> {
    return this.repo.linkToken(accountId, automationId, runId, position, url, newToken);
  }

  /** Counts stored clicks nobody counted (no-op for a click counted meanwhile). */
  async sweep(): Promise<void> {
    for (const id of await this.repo.uncounted(5, 100)) this.published(await this.repo.countStored(id, newClickEnvelope(this.serviceName)));
  }

  private published(click: CountedClick | null): void {
    if (click?.published) this.relay.wake();
  }
}
