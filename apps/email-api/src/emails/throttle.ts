/**
 * The per-project send throttle's arithmetic (pure): a token bucket per project holding up to one
 * second of its rate (at least one mail), refilled continuously at the rate, one token per mail.
 * The send worker asks for a project's due mails in priority order (transactional 1, workflow 5,
 * campaign 10, then by due time) and takes as many as the bucket grants, so a project never exceeds
 * its rate whatever kind of mail it sends, and a campaign's queued backlog never goes before a
 * transactional mail that became due.
 */

/** Mails a project's bucket holds at most: one second of its rate, at least one. */
export function bucketCapacity(rate: number): number {
  return Math.max(1, rate);
}

/** Tokens after refilling `tokens` at `rate` per second for `elapsedSeconds`, capped. */
export function refill(tokens: number, rate: number, elapsedSeconds: number): number {
  return Math.min(bucketCapacity(rate), tokens + rate * Math.max(0, elapsedSeconds));
}

/**
 * How many of each project's due mails to take now: at most its whole tokens and at most `limit`
 * in all, projects taking turns one mail at a time (so one busy project does not take a round from
 * the others).
 */
export function allocate(wanted: Map<string, number>, tokens: Map<string, number>, limit: number): Map<string, number> {
  const grants = new Map<string, number>();
  const room = new Map<string, number>();
  for (const [project, n] of wanted) room.set(project, Math.max(0, Math.min(n, Math.floor((tokens.get(project) ?? 0) + 1e-9))));
  let left = limit;
  let progress = true;
  while (left > 0 && progress) {
    progress = false;
    for (const [project, r] of room) {
      if (left === 0) break;
      const given = grants.get(project) ?? 0;
      if (given < r) {
        grants.set(project, given + 1);
        left--;
        progress = true;
      }
    }
  }
  return grants;
}
