import { defineEvent } from '@platform/messaging';

/** The notification body posted to AUDIT_WEBHOOK_URL. */
export interface AuditNotification {
  event: 'an_audit.low_score';
  audit_id: string;
  shipment_ref: string | null;
  outcome: string;
  score: number;
  threshold: number;
  failed_checks: { name: string; stop_processing: boolean; message: string }[];
  audited_at: string;
}

/**
 * `logistics.audit_flagged`: an arrival-notice audit scored below AUDIT_SCORE_THRESHOLD; enqueued in
 * the transaction that stores the audit, delivered to AUDIT_WEBHOOK_URL by the consumer
 * `logistics-hooks.audit-webhooks` (retried by the messaging lib, then dead-lettered). Declared here until
 * the contract moves to `libs/messaging/src/contracts/events.ts`.
 */
export const LogisticsAuditFlagged = defineEvent<AuditNotification>('logistics.audit_flagged');
