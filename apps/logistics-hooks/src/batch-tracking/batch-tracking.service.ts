import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { HttpSafetyError, SafeHttpClient } from '@platform/http-safety';
import { LogisticsHooksConfig } from '../config';
import type { BatchShipmentDto } from './dto/batch-track.dto';
import { categorise, parseFeed, totals, type FeedOutcome, type TruckCategory, type TruckRules } from './truck-status';

export interface TrackedShipment {
  unit: string | null;
  containers: string[];
  tracking_url: string | null;
  planned_eta: string | null;
  status: TruckCategory;
  reason: string;
  location: { lat: number; lon: number; name: string | null } | null;
  speed: number | null;
  driver: string | null;
  recorded_at: string | null;
  age_minutes: number | null;
  eta: string | null;
  delay_minutes: number | null;
}

export interface BatchResult {
  totals: ReturnType<typeof totals>;
  checked_at: string;
  shipments: TrackedShipment[];
}

/**
 * Batch truck tracking: each shipment's position feed fetched through `@platform/http-safety` (public
 * addresses only unless OUTBOUND_ALLOW_PRIVATE, a size cap, a timeout), each distinct link once per
 * call, at most BATCH_TRACK_CONCURRENCY at a time, and categorised by the rules of truck-status.ts.
 */
@Injectable()
export class BatchTrackingService implements OnModuleDestroy {
  private readonly http: SafeHttpClient;
  private readonly rules: TruckRules;

  constructor(@Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig) {
    this.http = new SafeHttpClient({
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
      timeoutMs: config.BATCH_TRACK_TIMEOUT_MS,
      headersTimeoutMs: config.BATCH_TRACK_TIMEOUT_MS,
      bodyTimeoutMs: config.BATCH_TRACK_TIMEOUT_MS,
      connectTimeoutMs: Math.min(5000, config.BATCH_TRACK_TIMEOUT_MS),
      maxBytes: 64 * 1024,
      maxRedirects: 3,
    });
    this.rules = { expiredAfterMin: config.BATCH_EXPIRED_AFTER_MIN, delayToleranceMin: config.BATCH_DELAY_TOLERANCE_MIN, stoppedBelowKmh: config.BATCH_STOPPED_BELOW_KMH };
  }

  async onModuleDestroy(): Promise<void> {
    await this.http.close();
  }

  async track(shipments: BatchShipmentDto[], now = new Date()): Promise<BatchResult> {
    if (shipments.length > this.config.BATCH_TRACK_MAX_SHIPMENTS) {
      throw new ApiError(422, 'TOO_MANY_SHIPMENTS', `${shipments.length} shipments in one call; at most ${this.config.BATCH_TRACK_MAX_SHIPMENTS} are tracked at once`, {
        suggestion: `Split the list into calls of at most ${this.config.BATCH_TRACK_MAX_SHIPMENTS} shipments.`,
      });
    }
    const urls = [...new Set(shipments.map((s) => s.tracking_url?.trim()).filter((u): u is string => !!u))];
    const outcomes = new Map<string, FeedOutcome>();
    let next = 0;
    const worker = async () => {
      while (next < urls.length) {
        const url = urls[next++];
        outcomes.set(url, await this.fetchFeed(url));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.BATCH_TRACK_CONCURRENCY, urls.length) }, worker));

    const tracked = shipments.map((s): TrackedShipment => {
      const url = s.tracking_url?.trim() || null;
      const outcome: FeedOutcome = url ? outcomes.get(url)! : { kind: 'failed', reason: 'no tracking_url' };
      const c = categorise(outcome, s.eta ? new Date(s.eta).toISOString() : null, now, this.rules);
      const p = outcome.kind === 'position' ? outcome.position : null;
      return {
        unit: s.unit ?? null,
        containers: s.containers ?? [],
        tracking_url: url,
        planned_eta: s.eta ? new Date(s.eta).toISOString() : null,
        status: c.status,
        reason: c.reason,
        location: p ? { lat: p.lat, lon: p.lon, name: p.location } : null,
        speed: p?.speed ?? null,
        driver: p?.driver ?? null,
        recorded_at: p?.recorded_at ?? null,
        age_minutes: c.age_minutes,
        eta: c.eta,
        delay_minutes: c.delay_minutes,
      };
    });
    return { totals: totals(tracked.map((t) => t.status)), checked_at: now.toISOString(), shipments: tracked };
  }

  private async fetchFeed(url: string): Promise<FeedOutcome> {
    try {
      const res = await this.http.fetch(url, { headers: { accept: 'application/json' } });
      if (res.status === 410) return { kind: 'gone' };
      if (!res.ok) return { kind: 'failed', reason: `the feed answered ${res.status}` };
      let body: unknown;
      try {
        body = JSON.parse(res.text());
      } catch {
        return { kind: 'failed', reason: 'the feed did not answer JSON' };
      }
      return parseFeed(body);
    } catch (err) {
      if (err instanceof HttpSafetyError) {
        return { kind: 'failed', reason: err.code === 'BLOCKED_ADDRESS' || err.code === 'INVALID_URL' ? 'the link is not a public http(s) address' : `the feed did not answer (${err.code})` };
      }
      return { kind: 'failed', reason: `the feed did not answer (${(err as Error).message})` };
    }
  }
}
