import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { hmacSignature, safeFetch } from '@platform/http-safety';
import { AutomationsService } from '../automations/automations.service';
import { AutomationConfig } from '../config';
import { EventsService } from '../events/events.service';
import { DeliveriesRepository, type DeliveryRow } from './deliveries.repository';
import { retryDelayMs } from '../common/retry-delay';
import { outboundPermission } from '../common/outbound-policy';

/**
 * Customer webhooks (`email_captured`, `link_sent`): POST of the stored JSON body to webhook_url
 * through safeFetch (https only, private addresses refused at connection time), signed with
 * `X-Service-Signature: sha256=<HMAC-SHA256 hex>` when the automation has a secret. A failed attempt
 * is retried with exponential backoff (scheduled in the database: next_attempt_at, claimed with a
 * lease), each attempt logged on the row and as an Event. Polls every AUTOMATION_POLL_MS.
 */
@Injectable()
export class DeliveriesWorker extends PollingWorker {
  protected readonly logger = new Logger(DeliveriesWorker.name);

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly automations: AutomationsService,
    private readonly events: EventsService,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.AUTOMATION_POLL_MS);
  }

  /** Delivers what is due now; returns the number of attempts made. */
  async tick(): Promise<number> {
    const rows = await this.deliveries.claimDue(20);
    await Promise.all(rows.map((r) => this.deliver(r)));
    return rows.length;
  }

  private async deliver(d: DeliveryRow): Promise<void> {
    const body = JSON.stringify(d.payload);
    const secret = d.automation_id ? await this.automations.webhookSecret(d.automation_id) : null;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'automation-api-webhooks/1.0' };
    if (secret) headers['x-service-signature'] = hmacSignature(body, secret);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await safeFetch(d.url, { method: 'POST', headers, body }, { ...outboundPermission(this.config, 'customer_webhook'), timeoutMs: 10_000, maxBytes: 64 * 1024, maxRedirects: 0 });
      status = res.status;
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    const attempts = d.attempts + 1;
    const base = { automation_id: d.automation_id, run_id: d.run_id, ref: `webhook_delivery:${d.id}` };
    if (error === null) {
      await this.deliveries.markDelivered(d.id, attempts, status);
      await this.events.record(d.account_id, { ...base, kind: 'webhook_delivered', text: `${d.kind} → ${d.url} (HTTP ${status}, attempt ${attempts})` });
      return;
    }
    const final = attempts >= this.config.AUTOMATION_MAX_ATTEMPTS;
    const delay = retryDelayMs(this.config.AUTOMATION_RETRY_BASE_MS, attempts);
    await this.deliveries.markAttemptFailed(d.id, { attempts, status, error, final, retryInMs: delay });
    await this.events.record(d.account_id, { ...base, kind: final ? 'webhook_failed' : 'webhook_retry', text: `${d.kind} → ${d.url}: ${error} (attempt ${attempts})` });
  }
}
