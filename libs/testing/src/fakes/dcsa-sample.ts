// DCSA Track & Trace v2.2 events of a sample voyage for the fake carrier servers of tests and benches:
// container MAEU7654320 (bill of lading MAEU240123456, booking 240123456) loaded at Shanghai on the
// MAERSK ESSEN, voyage 241W, bound for Manzanillo (MX).
import type { DcsaEvent, FakeDcsaShipment } from './dcsa-tnt';

const call = (port: string) => ({
  transportCallID: `${port}-241W`,
  exportVoyageNumber: '241W',
  importVoyageNumber: '241E',
  UNLocationCode: port,
  modeOfTransport: 'VESSEL',
  location: { UNLocationCode: port, locationName: port === 'CNSHA' ? 'Shanghai' : 'Manzanillo' },
  vessel: { vesselIMONumber: '9632179', vesselName: 'MAERSK ESSEN', vesselFlag: 'DK' },
});

export function sampleDcsaShipment(container = 'MAEU7654320', bl = 'MAEU240123456', booking = '240123456'): FakeDcsaShipment {
  const events: DcsaEvent[] = [
    { eventID: `${container}-1`, eventType: 'SHIPMENT', eventClassifierCode: 'ACT', shipmentEventTypeCode: 'CONF', documentTypeCode: 'BKG', documentID: booking, eventDateTime: '2026-10-20T09:00:00Z' },
    { eventID: `${container}-2`, eventType: 'EQUIPMENT', eventClassifierCode: 'ACT', equipmentEventTypeCode: 'GTIN', equipmentReference: container, eventLocation: { UNLocationCode: 'CNSHA' }, eventDateTime: '2026-11-01T09:00:00Z' },
    { eventID: `${container}-3`, eventType: 'TRANSPORT', eventClassifierCode: 'PLN', transportEventTypeCode: 'DEPA', transportCall: call('CNSHA'), eventDateTime: '2026-11-02T20:00:00Z' },
    { eventID: `${container}-4`, eventType: 'EQUIPMENT', eventClassifierCode: 'ACT', equipmentEventTypeCode: 'LOAD', equipmentReference: container, eventLocation: { UNLocationCode: 'CNSHA' }, transportCall: call('CNSHA'), eventDateTime: '2026-11-02T14:00:00Z' },
    { eventID: `${container}-5`, eventType: 'TRANSPORT', eventClassifierCode: 'ACT', transportEventTypeCode: 'DEPA', transportCall: call('CNSHA'), eventDateTime: '2026-11-03T08:00:00Z' },
    { eventID: `${container}-6`, eventType: 'TRANSPORT', eventClassifierCode: 'PLN', transportEventTypeCode: 'ARRI', transportCall: call('MXZLO'), eventDateTime: '2026-11-27T10:00:00Z' },
    { eventID: `${container}-7`, eventType: 'TRANSPORT', eventClassifierCode: 'EST', transportEventTypeCode: 'ARRI', transportCall: call('MXZLO'), eventDateTime: '2026-11-29T06:00:00Z' },
  ];
  return { equipmentReferences: [container], transportDocumentReference: bl, carrierBookingReference: booking, events };
}

/** What /ocean-track answers for {@link sampleDcsaShipment} (the mapping's fields). */
export const SAMPLE_DCSA_TRACKING = {
  vessel: 'MAERSK ESSEN',
  vessel_imo: '9632179',
  voyage: '241W',
  etd: '2026-11-03T08:00:00.000Z',
  eta: '2026-11-29T06:00:00.000Z',
  port: 'CNSHA',
  port_of_loading: 'CNSHA',
  port_of_discharge: 'MXZLO',
  status: 'LOADED',
};
