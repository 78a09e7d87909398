import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a confirmation link works (a repeated signup after that sends a new one). */
export const OPT_IN_LINK_TTL_SECONDS = 7 * 24 * 60 * 60;

export type OptInTokenCheck = { status: 'valid'; contactId: string } | { status: 'expired'; contactId: string } | { status: 'invalid' };

const TOKEN = /^(cnt_[0-9a-z]{1,64})\.([0-9a-z]{1,10})\.([A-Za-z0-9_-]{22})$/;

/**
 * Signed confirmation links of double opt-in: `<contact id>.<expiry>.<hmac>`, the expiry in seconds
 * since the epoch (base 36) and the HMAC-SHA256 (keyed with the service secret, 128 bits kept) over
 * the project, the contact and the expiry. Nothing is stored: a changed contact, project or expiry
 * fails the check, and an expired link is told apart from a forged one only once its signature holds.
 */
export class OptInTokens {
  constructor(
    private readonly key: Buffer,
    private readonly ttlSeconds = OPT_IN_LINK_TTL_SECONDS,
  ) {}

  token(projectId: string, contactId: string, now: Date = new Date()): string {
    const expires = (Math.floor(now.getTime() / 1000) + this.ttlSeconds).toString(36);
    return `${contactId}.${expires}.${this.sign(projectId, contactId, expires)}`;
  }

  /** The contact id a token names, without checking it (to find the contact's project), or null for a malformed token. */
  contactOf(token: string): string | null {
    return TOKEN.exec(token)?.[1] ?? null;
  }

  /** Checks the token against the contact's project at `now`. */
  verify(token: string, projectId: string, now: Date = new Date()): OptInTokenCheck {
    const m = TOKEN.exec(token);
    if (!m) return { status: 'invalid' };
    const [, contactId, expires, signature] = m;
    const expected = this.sign(projectId, contactId, expires);
    if (!timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) return { status: 'invalid' };
    return parseInt(expires, 36) * 1000 <= now.getTime() ? { status: 'expired', contactId } : { status: 'valid', contactId };
  }

  private sign(projectId: string, contactId: string, expires: string): string {
    return createHmac('sha256', this.key).update(`optin:${projectId}:${contactId}:${expires}`).digest('base64url').slice(0, 22);
  }
}
