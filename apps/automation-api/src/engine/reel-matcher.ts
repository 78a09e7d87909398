/**
 * next_post matching: pure functions. A waiting automation looks at the account's reels:
 * - a reel counts when it went online after the automation was created (15 minutes of slack), or,
 *   with `reel_publish_at`, between 15 minutes before and 30 minutes after that time;
 * - with `reel_caption`, the caption must contain it, case and spaces ignored;
 * - exactly one candidate → attach; several → a suggestion (the one closest to reel_publish_at,
 *   else the newest), never a guess; none for 24 hours after the later of creation and
 *   reel_publish_at → expired.
 */

export interface ReelCandidate {
  id: string;
  caption?: string;
  permalink?: string;
  timestamp?: string;
  media_product_type?: string;
  media_type?: string;
}

export interface WaitingAutomation {
  created_at: Date;
  reel_caption: string | null;
  reel_publish_at: Date | null;
}

export const EARLY_MS = 15 * 60_000;
export const LATE_MS = 30 * 60_000;
export const WAIT_MS = 24 * 3_600_000;

/** Lower case, every whitespace removed. */
export function compactCaption(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, '');
}

/** Graph timestamps look like 2024-01-01T10:00:00+0000. */
export function parseGraphTime(ts: string | undefined): number | null {
  if (!ts) return null;
  const t = Date.parse(ts.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(t) ? null : t;
}

export function isReel(m: ReelCandidate): boolean {
  return m.media_product_type === 'REELS';
}

export function reelMatches(a: WaitingAutomation, m: ReelCandidate): boolean {
  if (!isReel(m)) return false;
  const at = parseGraphTime(m.timestamp);
  if (at === null) return false;
  if (a.reel_publish_at) {
    const planned = a.reel_publish_at.getTime();
    if (at < planned - EARLY_MS || at > planned + LATE_MS) return false;
  } else if (at < a.created_at.getTime() - EARLY_MS) {
    return false;
  }
  if (a.reel_caption) return compactCaption(m.caption ?? '').includes(compactCaption(a.reel_caption));
  return true;
}

export type ReelDecision =
  | { kind: 'attach'; reel: ReelCandidate }
  | { kind: 'suggest'; reel: ReelCandidate; reason: string }
  | { kind: 'expire' }
  | { kind: 'wait' };

export function decideReel(a: WaitingAutomation, media: readonly ReelCandidate[], now: Date): ReelDecision {
  const matches = media.filter((m) => reelMatches(a, m));
  if (matches.length === 1) return { kind: 'attach', reel: matches[0] };
  if (matches.length > 1) {
    const target = a.reel_publish_at?.getTime();
    const best = [...matches].sort((x, y) => {
      const tx = parseGraphTime(x.timestamp) ?? 0;
      const ty = parseGraphTime(y.timestamp) ?? 0;
      return target !== undefined ? Math.abs(tx - target) - Math.abs(ty - target) || ty - tx : ty - tx;
    })[0];
    const by = [a.reel_caption ? 'caption' : null, a.reel_publish_at ? 'publish time' : null].filter(Boolean).join(' and ') || 'being new';
    return {
      kind: 'suggest',
      reel: best,
      reason: `${matches.length} reels match by ${by} (${matches.map((m) => m.id).join(', ')}); confirm one with POST /automations/{id}/attach`,
    };
  }
  const start = Math.max(a.created_at.getTime(), a.reel_publish_at?.getTime() ?? 0);
  return now.getTime() >= start + WAIT_MS ? { kind: 'expire' } : { kind: 'wait' };
}
