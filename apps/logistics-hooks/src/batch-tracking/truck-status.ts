/**
 * Truck positions → batch categories (spec, part F: `on_time`, `stopped`, `delayed`, `expired`,
 * `not_found`). Plain functions; `now` is given.
 *
 * The position feed behind each `tracking_url` answers JSON `{lat, lon, speed, recorded_at, driver,
 * eta?}` (speed in km/h, times ISO 8601; `location` text optional). The first rule that holds wins:
 *
 * | category | rule |
 * |---|---|
 * | `not_found` | no link, a private or loopback link, the link does not answer (timeout, network, non-2xx other than 410), or the answer has no valid `lat`/`lon`/`recorded_at` |
 * | `expired` | the feed answers 410 Gone, or the last position is older than `expiredAfterMin` (default 120) |
 * | `delayed` | the truck's ETA (the feed's `eta`, else the shipment's) is more than `delayToleranceMin` (default 30) after the shipment's planned `eta`, or the planned `eta` has passed more than that tolerance ago |
 * | `stopped` | speed below `stoppedBelowKmh` (default 5) |
 * | `on_time` | otherwise |
 *
 * Totals: `trucks` = shipments, `on_time` = shipments on time, `attention` = every other category.
 */

export const CATEGORIES = ['on_time', 'stopped', 'delayed', 'expired', 'not_found'] as const;
export type TruckCategory = (typeof CATEGORIES)[number];

export interface TruckRules {
  expiredAfterMin: number;
  delayToleranceMin: number;
  stoppedBelowKmh: number;
}

export const DEFAULT_TRUCK_RULES: TruckRules = { expiredAfterMin: 120, delayToleranceMin: 30, stoppedBelowKmh: 5 };

export interface TruckPosition {
  lat: number;
  lon: number;
  speed: number;
  recorded_at: string;
  driver: string | null;
  eta: string | null;
  location: string | null;
}

/** What fetching the feed gave: a position, 410 Gone, or nothing usable (with why). */
export type FeedOutcome = { kind: 'position'; position: TruckPosition } | { kind: 'gone' } | { kind: 'failed'; reason: string };

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const iso = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};
const text = (v: unknown, max = 200): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : null);

/** A feed's JSON answer as a position, or why it is not one. */
export function parseFeed(body: unknown): FeedOutcome {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { kind: 'failed', reason: 'the feed did not answer a JSON object' };
  const b = body as Record<string, unknown>;
  const lat = num(b.lat);
  const lon = num(b.lon ?? b.lng);
  const recordedAt = iso(b.recorded_at);
  if (lat === null || lon === null || lat < -90 || lat > 90 || lon < -180 || lon > 180) return { kind: 'failed', reason: 'the feed has no valid lat/lon' };
  if (!recordedAt) return { kind: 'failed', reason: 'the feed has no valid recorded_at' };
  const speed = num(b.speed);
  return {
    kind: 'position',
    position: { lat, lon, speed: speed !== null && speed >= 0 ? speed : 0, recorded_at: recordedAt, driver: text(b.driver), eta: iso(b.eta), location: text(b.location) },
  };
}

export interface Categorised {
  status: TruckCategory;
  reason: string;
  age_minutes: number | null;
  eta: string | null;
  delay_minutes: number | null;
}

export function categorise(outcome: FeedOutcome, plannedEta: string | null, now: Date, rules: TruckRules = DEFAULT_TRUCK_RULES): Categorised {
  if (outcome.kind === 'failed') return { status: 'not_found', reason: outcome.reason, age_minutes: null, eta: plannedEta, delay_minutes: null };
  if (outcome.kind === 'gone') return { status: 'expired', reason: 'the tracking link has expired (410 Gone)', age_minutes: null, eta: plannedEta, delay_minutes: null };
  const p = outcome.position;
  const ageMin = Math.max(0, Math.floor((now.getTime() - Date.parse(p.recorded_at)) / 60_000));
  const eta = p.eta ?? plannedEta;
  const planned = plannedEta ? Date.parse(plannedEta) : null;
  const expected = eta ? Date.parse(eta) : null;
  let delayMin: number | null = null;
  if (planned !== null && expected !== null) delayMin = Math.round((Math.max(expected, now.getTime() > planned && p.eta === null ? now.getTime() : expected) - planned) / 60_000);
  const base = { age_minutes: ageMin, eta, delay_minutes: delayMin };
  if (ageMin > rules.expiredAfterMin) return { status: 'expired', reason: `the last position is ${ageMin} minutes old (more than ${rules.expiredAfterMin})`, ...base };
  if (delayMin !== null && delayMin > rules.delayToleranceMin) return { status: 'delayed', reason: `${delayMin} minutes behind the planned ETA (tolerance ${rules.delayToleranceMin})`, ...base };
  if (p.speed < rules.stoppedBelowKmh) return { status: 'stopped', reason: `speed ${p.speed} km/h (below ${rules.stoppedBelowKmh})`, ...base };
  return { status: 'on_time', reason: 'moving and within the planned ETA', ...base };
}

export function totals(statuses: TruckCategory[]): { trucks: number; on_time: number; attention: number; by_status: Record<TruckCategory, number> } {
  const by = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<TruckCategory, number>;
  for (const s of statuses) by[s]++;
  return { trucks: statuses.length, on_time: by.on_time, attention: statuses.length - by.on_time, by_status: by };
}
