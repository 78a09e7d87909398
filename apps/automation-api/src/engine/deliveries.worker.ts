import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { claimDue } from '@platform/database';
import { hmacSignature, safeFetch } from '@platform/http-safety';
import { PollingLoop } from '../common/polling-loop';
import { AutomationConfig } from '../config';
import { EventsService } from '../events/events.service';
import { EngineRepository } from './engine.repository';

interface DeliveryRow {
  id: string;
  account_id: number;
  automation_id: number | null;
  run_id: string | null;
  kind: string;
  url: string;
  payload: Record<string, unknown>;
  attempts: number;
}

/**
 * Customer webhooks (`email_captured`, `link_sent`): POST of the stored JSON body to webhook_url
 * through safeFetch (https only, private addresses refused at connection time), signed with
 * `X-Service-Signature: sha256=<HMAC-SHA256 hex>` when the automation has a secret. A failed attempt
 * is retried with exponential backoff (scheduled in the database: next_attempt_at, claimed with a
 * lease), each attempt logged on the row and as an Event.
 */
@Injectable()
export class DeliveriesWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveriesWorker.name);
  private readonly loop: PollingLoop;

  constructor(
    private readonly repo: EngineRepository,
    private readonly events: EventsService,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    this.loop = new PollingLoop('webhook deliveries', this.config.AUTOMATION_POLL_MS, () => this.tick(), this.logger);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** Delivers what is due now; returns the number of attempts made. */
  async tick(): Promise<number> {
    const t = `${this.repo.s}.webhook_deliveries`;
    const rows = await claimDue<DeliveryRow>(this.repo.ds, {
      table: t,
      where: `status = 'pending' AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at ASC',
      limit: 20,
      lease: { column: 'lease_until', seconds: 60 },
    });
    await Promise.all(rows.map((r) => this.deliver(r)));
    return rows.length;
  }

  private async deliver(d: DeliveryRow): Promise<void> {
    const body = JSON.stringify(d.payload);
    const [automation] = d.automation_id
      ? await this.repo.ds.query(`SELECT webhook_secret FROM ${this.repo.s}.automations WHERE id = $1`, [d.automation_id])
      : [undefined];
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'automation-api-webhooks/1.0' };
    if (automation?.webhook_secret) headers['x-service-signature'] = hmacSignature(body, automation.webhook_secret);
    const allowPrivate = this.config.AUTOMATION_WEBHOOK_ALLOW_PRIVATE && this.config.NODE_ENV !== 'production';
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await safeFetch(d.url, { method: 'POST', headers, body }, { httpsOnly: !allowPrivate, allowPrivate, timeoutMs: 10_000, maxBytes: 64 * 1024, maxRedirects: 0 });
      status = res.status;
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    const attempts = d.attempts + 1;
    const base = { automation_id: d.automation_id, run_id: d.run_id, ref: `webhook_delivery:${d.id}` };
    if (error === null) {
      await this.repo.ds.query(
        `UPDATE ${this.repo.s}.webhook_deliveries SET status = 'delivered', attempts = $2, last_status = $3, last_error = NULL, delivered_at = now(), lease_until = NULL WHERE id = $1`,
        [d.id, attempts, status],
      );
      await this.events.record(d.account_id, { ...base, kind: 'webhook_delivered', text: `${d.kind} → ${d.url} (HTTP ${status}, attempt ${attempts})` });
      return;
    }
    const final = attempts >= this.config.AUTOMATION_MAX_ATTEMPTS;
    const delay = Math.min(this.config.AUTOMATION_RETRY_BASE_MS * 2 ** (attempts - 1), 3_600_000);
    await this.repo.ds.query(
      `UPDATE ${this.repo.s}.webhook_deliveries SET status = $2, attempts = $3, last_status = $4, last_error = $5,
         next_attempt_at = now() + make_interval(secs => $6::double precision), lease_until = NULL WHERE id = $1`,
      [d.id, final ? 'failed' : 'pending', attempts, status, error.slice(0, 1000), delay / 1000],
    );
    await this.events.record(d.account_id, { ...base, kind: final ? 'webhook_failed' : 'webhook_retry', text: `${d.kind} → ${d.url}: ${error} (attempt ${attempts})` });
  }
}
