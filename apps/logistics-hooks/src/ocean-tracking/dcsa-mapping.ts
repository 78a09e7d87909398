/**
 * DCSA Track & Trace v2.2 events → the spec's normalized tracking JSON. Plain functions, no I/O.
 *
 * Mapping (documented in the README and Swagger):
 * - Filter by reference kind: container → `equipmentReference`, bill of lading →
 *   `transportDocumentReference`, booking → `carrierBookingReference`.
 * - Classifier preference: ACT (actual) before EST (estimated) before PLN (planned); within one
 *   classifier the event created last (`eventCreatedDateTime`, else the later in the answer) wins.
 * - `port_of_loading`: the location of the first vessel departure (transport event `DEPA`, earliest
 *   `eventDateTime`), else of the first `LOAD`; `port_of_discharge`: the location of the last vessel
 *   arrival (`ARRI`, latest), else of the last `DISC`.
 * - `etd`: the `DEPA` at the port of loading (ACT, else EST, else PLN); `eta`: the `ARRI` at the port
 *   of discharge (same preference).
 * - `vessel`, `voyage`: of the latest actual departure (the vessel the cargo is on or last left on),
 *   else of the departure giving `etd`; voyage = the call's `exportVoyageNumber` (else import).
 * - `status`: the latest actual (ACT) equipment event, as a word (`LOAD` → `LOADED`, …, see
 *   EQUIPMENT_STATUS), null when there is none; `port`: where the latest actual event happened.
 * - `events`: every event, oldest first, as `{type, code, classifier, description, at, location,
 *   vessel, voyage, container}`.
 */

export type ReferenceKind = 'container' | 'bill_of_lading' | 'booking';
export type Classifier = 'ACT' | 'EST' | 'PLN';

export const DCSA_FILTER: Record<ReferenceKind, string> = {
  container: 'equipmentReference',
  bill_of_lading: 'transportDocumentReference',
  booking: 'carrierBookingReference',
};

export const EQUIPMENT_STATUS: Record<string, string> = {
  LOAD: 'LOADED',
  DISC: 'DISCHARGED',
  GTIN: 'GATE_IN',
  GTOT: 'GATE_OUT',
  STUF: 'STUFFED',
  STRP: 'STRIPPED',
  PICK: 'PICKED_UP',
  DROP: 'DROPPED_OFF',
  INSP: 'INSPECTED',
  RSEA: 'RESEALED',
  RMVD: 'REMOVED',
};

const DESCRIPTIONS: Record<string, string> = {
  ARRI: 'Vessel arrival',
  DEPA: 'Vessel departure',
  LOAD: 'Loaded on vessel',
  DISC: 'Discharged from vessel',
  GTIN: 'Gate in',
  GTOT: 'Gate out',
  STUF: 'Stuffed',
  STRP: 'Stripped',
  PICK: 'Picked up',
  DROP: 'Dropped off',
  INSP: 'Inspected',
  RSEA: 'Resealed',
  RMVD: 'Removed',
  RECE: 'Shipping instructions received',
  CONF: 'Booking confirmed',
  ISSU: 'Document issued',
  DRFT: 'Document drafted',
  APPR: 'Document approved',
  REJE: 'Rejected',
  PENU: 'Pending update',
  PENC: 'Pending confirmation',
  CANC: 'Cancelled',
  SURR: 'Surrendered',
  SUBM: 'Submitted',
  VOID: 'Voided',
};

export interface TrackingEvent {
  type: 'TRANSPORT' | 'EQUIPMENT' | 'SHIPMENT';
  code: string | null;
  classifier: Classifier | null;
  description: string;
  at: string | null;
  location: string | null;
  location_name: string | null;
  vessel: string | null;
  voyage: string | null;
  container: string | null;
}

export interface OceanTracking {
  carrier: string;
  vessel: string | null;
  vessel_imo: string | null;
  voyage: string | null;
  etd: string | null;
  eta: string | null;
  port: string | null;
  port_of_loading: string | null;
  port_of_discharge: string | null;
  status: string | null;
  events: TrackingEvent[];
}

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const time = (v: unknown): string | null => {
  const s = str(v);
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

interface Parsed {
  raw: Raw;
  index: number;
  event: TrackingEvent;
  created: string | null;
  vesselImo: string | null;
}

function parseEvent(raw: Raw, index: number): Parsed | null {
  const type = raw.eventType;
  if (type !== 'TRANSPORT' && type !== 'EQUIPMENT' && type !== 'SHIPMENT') return null;
  const classifier = raw.eventClassifierCode === 'ACT' || raw.eventClassifierCode === 'EST' || raw.eventClassifierCode === 'PLN' ? raw.eventClassifierCode : null;
  const code = str(type === 'TRANSPORT' ? raw.transportEventTypeCode : type === 'EQUIPMENT' ? raw.equipmentEventTypeCode : raw.shipmentEventTypeCode);
  const call = obj(raw.transportCall);
  const vessel = obj(call?.vessel);
  const callLocation = obj(call?.location);
  const eventLocation = obj(raw.eventLocation);
  const location = str(eventLocation?.UNLocationCode) ?? str(call?.UNLocationCode) ?? str(callLocation?.UNLocationCode);
  const locationName = str(eventLocation?.locationName) ?? str(callLocation?.locationName);
  return {
    raw,
    index,
    created: time(raw.eventCreatedDateTime),
    vesselImo: str(vessel?.vesselIMONumber),
    event: {
      type,
      code,
      classifier,
      description: (code && DESCRIPTIONS[code]) ?? (code ? code : type.toLowerCase()),
      at: time(raw.eventDateTime),
      location,
      location_name: locationName,
      vessel: str(vessel?.vesselName),
      voyage: str(call?.exportVoyageNumber) ?? str(call?.importVoyageNumber),
      container: str(raw.equipmentReference),
    },
  };
}

const RANK: Record<Classifier, number> = { ACT: 0, EST: 1, PLN: 2 };

/** The preferred of several events about one thing: ACT before EST before PLN, then the one created (or listed) last. */
export function preferred<T extends { event: { classifier: Classifier | null }; created: string | null; index: number }>(candidates: T[]): T | null {
  let best: T | null = null;
  for (const c of candidates) {
    if (!c.event.classifier) continue;
    if (!best) {
      best = c;
      continue;
    }
    const a = RANK[c.event.classifier];
    const b = RANK[best.event.classifier!];
    if (a < b || (a === b && (c.created ?? '') + String(c.index).padStart(8, '0') > (best.created ?? '') + String(best.index).padStart(8, '0'))) best = c;
  }
  return best;
}

const byTime = (a: Parsed, b: Parsed) => (a.event.at ?? '').localeCompare(b.event.at ?? '') || a.index - b.index;

/** The normalized tracking of one reference from its DCSA events (any order, malformed entries skipped). */
export function mapDcsaEvents(carrier: string, rawEvents: unknown[]): OceanTracking {
  const parsed = rawEvents.map((e, i) => (obj(e) ? parseEvent(obj(e)!, i) : null)).filter((p): p is Parsed => p !== null);
  const sorted = [...parsed].sort(byTime);
  const transport = (code: string) => sorted.filter((p) => p.event.type === 'TRANSPORT' && p.event.code === code && p.event.location);
  const equipment = (code: string) => sorted.filter((p) => p.event.type === 'EQUIPMENT' && p.event.code === code && p.event.location);

  const departures = transport('DEPA');
  const arrivals = transport('ARRI');
  const pol = departures[0]?.event.location ?? equipment('LOAD')[0]?.event.location ?? null;
  const pod = arrivals.at(-1)?.event.location ?? equipment('DISC').at(-1)?.event.location ?? null;
  const etdEvent = pol ? preferred(departures.filter((p) => p.event.location === pol)) : null;
  const etaEvent = pod ? preferred(arrivals.filter((p) => p.event.location === pod)) : null;

  const actual = sorted.filter((p) => p.event.classifier === 'ACT' && p.event.at);
  const lastActualDeparture = departures.filter((p) => p.event.classifier === 'ACT').at(-1);
  const vesselEvent = lastActualDeparture ?? etdEvent;
  const lastEquipment = actual.filter((p) => p.event.type === 'EQUIPMENT' && p.event.code).at(-1);
  const lastActual = actual.at(-1);

  return {
    carrier,
    vessel: vesselEvent?.event.vessel ?? null,
    vessel_imo: vesselEvent?.vesselImo ?? null,
    voyage: vesselEvent?.event.voyage ?? null,
    etd: etdEvent?.event.at ?? null,
    eta: etaEvent?.event.at ?? null,
    port: lastActual?.event.location ?? null,
    port_of_loading: pol,
    port_of_discharge: pod,
    status: lastEquipment ? (EQUIPMENT_STATUS[lastEquipment.event.code!] ?? lastEquipment.event.code) : null,
    events: sorted.map((p) => p.event),
  };
}
