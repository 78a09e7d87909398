/**
 * The durable consumers of each event: routing key → the `@EventConsumer` names of the apps that
 * consume it from a shared queue (README, "Event catalogue"). A publisher declares these queues
 * (with their retry and dead-letter companions and the binding) before it first publishes the
 * event on a connection, so an event published before its consumer's app has ever started waits in
 * the queue instead of being routed nowhere. Keep it in step with the apps' `@EventConsumer`s:
 * `consumers.spec.ts` checks every name against the apps' sources.
 */
export const EVENT_CONSUMERS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'automation.email_captured': ['email-api.automation'],
  'automation.link_sent': ['email-api.automation'],
  'automation.link_clicked': ['email-api.automation'],
  'email.event_tracked': ['email-api.workflows'],
  'email.campaign_batch': ['email-api.campaigns'],
  'auth.session_revoked': ['logistics-hooks.sessions'],
  'logistics.error_reported': ['logistics-hooks.errors'],
  'logistics.audit_flagged': ['logistics-hooks.audit-webhooks'],
  'conversation.access_ended': ['conversation-api.sockets'],
  'conversation.message_created': ['conversation-api.recipes'],
  'conversation.created': ['conversation-api.recipes'],
  'conversation.status_changed': ['conversation-api.recipes'],
  'conversation.assignee_changed': ['conversation-api.recipes'],
});

/** The queues (`prefix` + consumer name) to declare for an event type, from `catalogue`. */
export function consumerQueuesOf(type: string, catalogue: Readonly<Record<string, readonly string[]>>, prefix = ''): string[] {
  return (catalogue[type] ?? []).map((name) => `${prefix}${name}`);
}
