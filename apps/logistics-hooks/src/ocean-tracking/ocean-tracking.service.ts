import { Inject, Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { LogisticsHooksConfig } from '../config';
import { ErrorReportsService } from '../error-reports/error-reports.service';
import { mapDcsaEvents, type OceanTracking, type ReferenceKind } from './dcsa-mapping';
import { CarrierError } from './dcsa.client';
import { OceanCacheRepository, type CachedTracking } from './ocean-cache.repository';
import { OceanCarriers } from './ocean-carriers';
import { carrierName, KNOWN_CARRIERS, parseOceanQuery } from './ocean-references';

export interface OceanTrackResult extends OceanTracking {
  tracking_number: string;
  kind: ReferenceKind;
  carrier_name: string;
  /** `carrier`: asked now; `cache`: a stored answer younger than OCEAN_CACHE_TTL_SECONDS; `stale_cache`: the carrier failed, this is the last answer. */
  source: 'carrier' | 'cache' | 'stale_cache';
  fetched_at: string;
  age_seconds: number;
  stale: boolean;
}

export interface OceanQueryInput {
  tracking_number: string;
  carrier?: string;
  reference_type?: ReferenceKind;
}

/**
 * Ocean tracking over DCSA Track & Trace: the reference parsed (kind, carrier, check digit), the answer
 * taken from the database cache while fresh (shared by replicas), else from the carrier under a
 * transaction-scoped advisory lock per reference (concurrent identical requests make one carrier call:
 * the others wait and read what it stored). A carrier failure is recorded as an error record
 * (source `ocean-track`) and answered with the last stored result and its age, or 502.
 */
@Injectable()
export class OceanTrackingService {
  private readonly logger = new Logger(OceanTrackingService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly cache: OceanCacheRepository,
    private readonly carriers: OceanCarriers,
    private readonly errors: ErrorReportsService,
    @Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig,
  ) {}

  async track(input: OceanQueryInput): Promise<OceanTrackResult> {
    const query = parseOceanQuery(input.tracking_number, input.carrier, input.reference_type);
    if (!query.ok) throw new ApiError(query.code === 'UNKNOWN_CARRIER' ? 400 : 422, query.code, query.message, { suggestion: query.suggestion });
    if (!query.carrier) {
      throw new ApiError(422, 'CARRIER_REQUIRED', `The carrier of ${query.reference} cannot be told from its prefix`, {
        suggestion: `Send carrier (one of ${KNOWN_CARRIERS.join(', ')}).`,
      });
    }
    const { carrier, kind, reference } = query;
    const client = this.carriers.get(carrier);
    if (!client) {
      throw new ApiError(503, 'CARRIER_NOT_CONFIGURED', `Tracking with ${carrierName(carrier)} is not configured`, {
        suggestion: `Configured carriers: ${this.carriers.configured.join(', ') || 'none'}. An operator adds ${carrier} to OCEAN_CARRIERS (its DCSA Track & Trace URL and credentials).`,
      });
    }
    const ttl = this.config.OCEAN_CACHE_TTL_SECONDS;
    const fresh = await this.cache.find(carrier, kind, reference);
    if (fresh && fresh.ageSeconds < ttl) return this.answer(reference, kind, fresh, 'cache');

    const outcome = await this.transactions.transaction(async () => {
      await this.transactions.lock(`ocean-track:${carrier}:${kind}:${reference}`);
      const cached = await this.cache.findLocked(carrier, kind, reference);
      if (cached && cached.ageSeconds < ttl) return { cached, source: 'cache' as const };
      try {
        const result = mapDcsaEvents(carrier, await client.events(kind, reference));
        const fetchedAt = await this.cache.store(carrier, kind, reference, result);
        const stored: CachedTracking = { result, fetchedAt, ageSeconds: 0 };
        return { cached: stored, source: 'carrier' as const };
      } catch (err) {
        if (!(err instanceof CarrierError)) throw err;
        return { failure: err, stale: cached };
      }
    });
    if ('source' in outcome && outcome.cached) return this.answer(reference, kind, outcome.cached, outcome.source);
    if (!('failure' in outcome) || !outcome.failure) throw new Error('unreachable: no answer and no failure');

    await this.recordFailure(carrier, kind, reference, outcome.failure);
    if (outcome.stale) return this.answer(reference, kind, outcome.stale, 'stale_cache');
    throw new ApiError(502, 'CARRIER_UNAVAILABLE', `${carrierName(carrier)} did not answer the tracking of ${reference}: ${outcome.failure.message}`, {
      suggestion: 'Try again in a few minutes; the failure is recorded in the error dashboard.',
    });
  }

  private answer(reference: string, kind: ReferenceKind, cached: CachedTracking, source: OceanTrackResult['source']): OceanTrackResult {
    return {
      tracking_number: reference,
      kind,
      carrier_name: carrierName(cached.result.carrier),
      ...cached.result,
      source,
      fetched_at: cached.fetchedAt.toISOString(),
      age_seconds: cached.ageSeconds,
      stale: source === 'stale_cache',
    };
  }

  private async recordFailure(carrier: string, kind: ReferenceKind, reference: string, err: CarrierError): Promise<void> {
    try {
      // one record per carrier and kind of failure (the fingerprint is the message), counted by occurrences
      await this.errors.report({
        message: `ocean-track: ${carrier} ${err.status === null ? 'did not answer' : `answered ${err.status}`}`,
        source: 'ocean-track',
        severity: 'warning',
        context: { carrier, kind, reference, detail: err.message },
      });
    } catch (reportErr) {
      this.logger.warn(`could not record the failure of ${carrier}: ${(reportErr as Error).message}`);
    }
  }
}
