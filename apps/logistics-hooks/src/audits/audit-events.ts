import type { LogisticsAuditFlaggedData } from '@platform/messaging';

/** The notification body posted to AUDIT_WEBHOOK_URL: the data of `logistics.audit_flagged` (LogisticsAuditFlagged of @platform/messaging). */
export type AuditNotification = LogisticsAuditFlaggedData;
