import { DCSA_FILTER, EQUIPMENT_STATUS, mapDcsaEvents, type OceanTracking } from './dcsa-mapping';

const call = (port: string, vessel = 'MAERSK ESSEN', voyage = '241W', imo = '9632179') => ({
  transportCallID: `${port}-${voyage}`,
  exportVoyageNumber: voyage,
  UNLocationCode: port,
  modeOfTransport: 'VESSEL',
  location: { UNLocationCode: port, locationName: port },
  vessel: { vesselIMONumber: imo, vesselName: vessel },
});
const transport = (code: 'ARRI' | 'DEPA', cls: 'ACT' | 'EST' | 'PLN', at: string, port: string, extra: Record<string, unknown> = {}) => ({
  eventType: 'TRANSPORT', eventClassifierCode: cls, transportEventTypeCode: code, eventDateTime: at, transportCall: call(port), ...extra,
});
const equipment = (code: string, cls: 'ACT' | 'EST' | 'PLN', at: string, port: string, extra: Record<string, unknown> = {}) => ({
  eventType: 'EQUIPMENT', eventClassifierCode: cls, equipmentEventTypeCode: code, eventDateTime: at, equipmentReference: 'MAEU7654320',
  eventLocation: { UNLocationCode: port }, ...extra,
});

type Expect = Partial<Omit<OceanTracking, 'events'>> & { eventCount?: number };

describe('DCSA T&T v2.2 → normalized tracking', () => {
  it.each<[string, unknown[], Expect]>([
    ['no events: everything unknown', [], { vessel: null, voyage: null, etd: null, eta: null, port: null, port_of_loading: null, port_of_discharge: null, status: null, eventCount: 0 }],
    [
      'ETD: the actual departure beats the estimate and the plan',
      [
        transport('DEPA', 'PLN', '2026-11-01T10:00:00Z', 'CNSHA'),
        transport('DEPA', 'EST', '2026-11-02T10:00:00Z', 'CNSHA'),
        transport('DEPA', 'ACT', '2026-11-03T08:00:00Z', 'CNSHA'),
        transport('ARRI', 'PLN', '2026-11-28T10:00:00Z', 'MXZLO'),
      ],
      { etd: '2026-11-03T08:00:00.000Z', eta: '2026-11-28T10:00:00.000Z', port_of_loading: 'CNSHA', port_of_discharge: 'MXZLO', vessel: 'MAERSK ESSEN', voyage: '241W', vessel_imo: '9632179', port: 'CNSHA' },
    ],
    [
      'ETA: the estimate beats the plan; of two estimates the one created last wins',
      [
        transport('DEPA', 'ACT', '2026-11-03T08:00:00Z', 'CNSHA'),
        transport('ARRI', 'PLN', '2026-11-28T10:00:00Z', 'MXZLO'),
        transport('ARRI', 'EST', '2026-11-30T10:00:00Z', 'MXZLO', { eventCreatedDateTime: '2026-11-10T00:00:00Z' }),
        transport('ARRI', 'EST', '2026-11-29T10:00:00Z', 'MXZLO', { eventCreatedDateTime: '2026-11-20T00:00:00Z' }),
      ],
      { eta: '2026-11-29T10:00:00.000Z' },
    ],
    [
      'status: the latest actual equipment event; estimates and plans never set it',
      [
        equipment('GTIN', 'ACT', '2026-11-01T09:00:00Z', 'CNSHA'),
        equipment('LOAD', 'ACT', '2026-11-02T09:00:00Z', 'CNSHA'),
        equipment('DISC', 'PLN', '2026-11-28T12:00:00Z', 'MXZLO'),
      ],
      { status: 'LOADED', port: 'CNSHA', port_of_loading: 'CNSHA', port_of_discharge: 'MXZLO', etd: null, eta: null },
    ],
    [
      'only planned events: no status, no port, dates from the plan',
      [transport('DEPA', 'PLN', '2026-12-01T10:00:00Z', 'CNSHA'), transport('ARRI', 'PLN', '2026-12-20T10:00:00Z', 'MXZLO')],
      { status: null, port: null, etd: '2026-12-01T10:00:00.000Z', eta: '2026-12-20T10:00:00.000Z', vessel: 'MAERSK ESSEN' },
    ],
    [
      'transshipment: first departure and last arrival are the ports; the vessel is the one last departed on',
      [
        transport('DEPA', 'ACT', '2026-11-03T08:00:00Z', 'CNSHA'),
        transport('ARRI', 'ACT', '2026-11-09T08:00:00Z', 'SGSIN'),
        { ...transport('DEPA', 'ACT', '2026-11-12T08:00:00Z', 'SGSIN'), transportCall: call('SGSIN', 'MSC ANNA', '312E', '9777777') },
        equipment('DISC', 'ACT', '2026-11-09T12:00:00Z', 'SGSIN'),
        equipment('LOAD', 'ACT', '2026-11-12T06:00:00Z', 'SGSIN'),
        { ...transport('ARRI', 'EST', '2026-11-30T08:00:00Z', 'MXZLO'), transportCall: call('MXZLO', 'MSC ANNA', '312E', '9777777') },
      ],
      { port_of_loading: 'CNSHA', port_of_discharge: 'MXZLO', etd: '2026-11-03T08:00:00.000Z', eta: '2026-11-30T08:00:00.000Z', vessel: 'MSC ANNA', voyage: '312E', port: 'SGSIN', status: 'LOADED' },
    ],
    [
      'no vessel events: the ports come from LOAD and DISC',
      [equipment('LOAD', 'ACT', '2026-11-02T09:00:00Z', 'ESVLC'), equipment('DISC', 'ACT', '2026-11-20T09:00:00Z', 'MXVER')],
      { port_of_loading: 'ESVLC', port_of_discharge: 'MXVER', status: 'DISCHARGED', port: 'MXVER', vessel: null },
    ],
    [
      'malformed entries are skipped',
      [null, 'x', { eventType: 'OTHER' }, { eventType: 'EQUIPMENT', eventClassifierCode: 'ACT', equipmentEventTypeCode: 'GTOT', eventDateTime: 'not a date' }, equipment('GTIN', 'ACT', '2026-11-01T09:00:00Z', 'CNSHA')],
      { status: 'GATE_IN', eventCount: 2 },
    ],
    [
      'shipment events are listed but set nothing',
      [{ eventType: 'SHIPMENT', eventClassifierCode: 'ACT', shipmentEventTypeCode: 'CONF', eventDateTime: '2026-10-20T00:00:00Z', documentTypeCode: 'BKG' }],
      { status: null, port: null, eventCount: 1 },
    ],
  ])('%s', (_name, events, expected) => {
    const { eventCount, ...fields } = expected;
    const result = mapDcsaEvents('MAERSK', events);
    expect(result).toMatchObject({ carrier: 'MAERSK', ...fields });
    if (eventCount !== undefined) expect(result.events).toHaveLength(eventCount);
  });

  it('lists events oldest first with their fields', () => {
    const result = mapDcsaEvents('MSC', [equipment('LOAD', 'ACT', '2026-11-02T09:00:00Z', 'CNSHA'), transport('DEPA', 'ACT', '2026-11-01T08:00:00+08:00', 'CNSHA')]);
    expect(result.events).toEqual([
      { type: 'TRANSPORT', code: 'DEPA', classifier: 'ACT', description: 'Vessel departure', at: '2026-11-01T00:00:00.000Z', location: 'CNSHA', location_name: 'CNSHA', vessel: 'MAERSK ESSEN', voyage: '241W', container: null },
      { type: 'EQUIPMENT', code: 'LOAD', classifier: 'ACT', description: 'Loaded on vessel', at: '2026-11-02T09:00:00.000Z', location: 'CNSHA', location_name: null, vessel: null, voyage: null, container: 'MAEU7654320' },
    ]);
  });

  it.each(Object.entries(EQUIPMENT_STATUS))('equipment code %s → status %s', (code, status) => {
    expect(mapDcsaEvents('ONE', [equipment(code, 'ACT', '2026-11-02T09:00:00Z', 'CNSHA')]).status).toBe(status);
  });

  it.each([
    ['container', 'equipmentReference'],
    ['bill_of_lading', 'transportDocumentReference'],
    ['booking', 'carrierBookingReference'],
  ] as const)('a %s is queried with %s', (kind, filter) => {
    expect(DCSA_FILTER[kind]).toBe(filter);
  });
});
