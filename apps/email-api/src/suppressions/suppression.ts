export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'unsubscribe', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface Suppression {
  email: string;
  reason: SuppressionReason;
  source: string;
  createdAt: Date;
}

/**
 * Which suppressions stop a mail. Marketing mail: every reason. Transactional mail: every reason but
 * `unsubscribe` (an unsubscribe is from marketing; receipts and password resets still go). With the
 * send's `bypassSuppression` (transactional only, for mail the recipient asked for such as a
 * password reset) only a hard bounce stops it: the address does not exist, another attempt only
 * bounces again and costs the sender's reputation.
 */
export function suppressionApplies(reason: SuppressionReason, kind: 'MARKETING' | 'TRANSACTIONAL' | 'SYSTEM', bypass: boolean): boolean {
  if (kind === 'MARKETING') return true;
  if (reason === 'unsubscribe') return false;
  if (bypass) return reason === 'hard_bounce';
  return true;
}

export function suppressedReasonText(s: Pick<Suppression, 'reason' | 'source'>): string {
  return `The address is on the project's suppression list (${s.reason}, from ${s.source}): not sent`;
}
