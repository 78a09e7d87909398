import { Inject, Injectable, Logger } from '@nestjs/common';
import { hmacSignature, safeFetch } from '@platform/http-safety';
import { EventConsumer, LogisticsAuditFlagged, OnEvent, type EventEnvelope } from '@platform/messaging';
import { LogisticsHooksConfig } from '../config';
import type { AuditNotification } from './audit-events';

/**
 * Delivers `logistics.audit_flagged` to AUDIT_WEBHOOK_URL: `POST` JSON, `X-Signature: sha256=<HMAC-SHA256
 * of the body with AUDIT_WEBHOOK_SECRET>`, `X-Event-Id` (the same on every retry, for the receiver to
 * deduplicate). Through the http-safety lib (public addresses only unless OUTBOUND_ALLOW_PRIVATE, 10 s).
 * A failure or a non-2xx answer throws: the messaging lib retries (EVENTS_MAX_RETRIES, backoff), then
 * dead-letters the event.
 */
@Injectable()
@EventConsumer('logistics-hooks.audit-webhooks')
export class AuditWebhookConsumer {
  private readonly logger = new Logger(AuditWebhookConsumer.name);

  constructor(@Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig) {}

  @OnEvent(LogisticsAuditFlagged)
  async deliver(event: EventEnvelope<AuditNotification>): Promise<void> {
    const url = this.config.AUDIT_WEBHOOK_URL;
    if (!url) return;
    const body = JSON.stringify(event.data);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-event-id': event.id, 'user-agent': 'logistics-hooks' };
    if (this.config.AUDIT_WEBHOOK_SECRET) headers['x-signature'] = hmacSignature(body, this.config.AUDIT_WEBHOOK_SECRET);
    const res = await safeFetch(url, { method: 'POST', headers, body }, { allowPrivate: this.config.OUTBOUND_ALLOW_PRIVATE, timeoutMs: 10_000, maxBytes: 64 * 1024, redirect: 'error' });
    if (!res.ok) throw new Error(`the audit webhook answered ${res.status}`);
    this.logger.debug(`audit ${event.data.audit_id} notified (${res.status})`);
  }
}
