/**
 * What the public portal says about a shipment: the carrier's facts only (carrier, vessel, voyage,
 * ports, ETD, ETA, status and events from ocean tracking), never anything of the service's internal
 * tasks. Plain functions.
 */
import type { OceanTracking, ReferenceKind } from '../ocean-tracking/dcsa-mapping';
import type { OceanTrackResult } from '../ocean-tracking/ocean-tracking.service';

/** The carrier's facts the portal repeats as they are. */
const FACTS = ['vessel', 'voyage', 'etd', 'eta', 'port', 'port_of_loading', 'port_of_discharge', 'status'] as const;
type Facts = { [K in (typeof FACTS)[number]]: OceanTracking[K] };

export interface PublicEvent {
  description: string;
  code: string | null;
  classifier: string | null;
  at: string | null;
  location: string | null;
}

export interface PublicTracking extends Facts {
  tracking_number: string;
  kind: ReferenceKind;
  carrier: { code: string; name: string } | null;
  check_digit_valid: boolean | null;
  /** False when no live data could be had (carrier unknown, not configured or not answering, nothing stored). */
  available: boolean;
  events: PublicEvent[];
  last_update: string | null;
  stale: boolean;
}

export function publicTracking(
  query: { reference: string; kind: ReferenceKind; carrier: { code: string; name: string } | null },
  result: OceanTrackResult | null,
): PublicTracking {
  return {
    tracking_number: query.reference,
    kind: query.kind,
    carrier: query.carrier,
    check_digit_valid: query.kind === 'container' ? true : null,
    available: result !== null,
    ...(Object.fromEntries(FACTS.map((f) => [f, result?.[f] ?? null])) as Facts),
    events: (result?.events ?? []).map((e) => ({ description: e.description, code: e.code, classifier: e.classifier, at: e.at, location: e.location })),
    last_update: result?.fetched_at ?? null,
    stale: result?.stale ?? false,
  };
}
