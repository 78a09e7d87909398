import type { OceanTrackResult } from '../ocean-tracking/ocean-tracking.service';
import { publicTracking } from './tracking';

const result: OceanTrackResult = {
  tracking_number: 'MAEU7654320',
  kind: 'container',
  carrier: 'MAERSK',
  carrier_name: 'Maersk',
  vessel: 'MAERSK ESSEN',
  vessel_imo: '9632179',
  voyage: '241W',
  etd: '2026-11-03T08:00:00.000Z',
  eta: '2026-11-28T10:00:00.000Z',
  port: 'CNSHA',
  port_of_loading: 'CNSHA',
  port_of_discharge: 'MXZLO',
  status: 'LOADED',
  events: [{ type: 'EQUIPMENT', code: 'LOAD', classifier: 'ACT', description: 'Loaded on vessel', at: '2026-11-02T09:00:00.000Z', location: 'CNSHA', location_name: null, vessel: null, voyage: null, container: 'MAEU7654320' }],
  source: 'cache',
  fetched_at: '2026-11-27T10:00:00.000Z',
  age_seconds: 12,
  stale: false,
};
const { vessel, voyage, etd, eta, port, port_of_loading, port_of_discharge, status } = result;
const facts = { vessel, voyage, etd, eta, port, port_of_loading, port_of_discharge, status };
const query = { reference: 'MAEU7654320', kind: 'container' as const, carrier: { code: 'MAERSK', name: 'Maersk' } };

describe('public tracking facts', () => {
  it('carries the carrier facts and nothing else', () => {
    expect(publicTracking(query, result)).toEqual({
      tracking_number: 'MAEU7654320',
      kind: 'container',
      carrier: { code: 'MAERSK', name: 'Maersk' },
      check_digit_valid: true,
      available: true,
      ...facts,
      events: [{ description: 'Loaded on vessel', code: 'LOAD', classifier: 'ACT', at: '2026-11-02T09:00:00.000Z', location: 'CNSHA' }],
      last_update: '2026-11-27T10:00:00.000Z',
      stale: false,
    });
  });

  it.each([
    ['no live data', { ...query }, null, { available: false, status: null, events: [], last_update: null }],
    ['a booking', { ...query, reference: '987654321', kind: 'booking' as const }, null, { kind: 'booking', check_digit_valid: null }],
    ['a stale answer', query, { ...result, stale: true, source: 'stale_cache' as const }, { available: true, stale: true }],
  ])('%s', (_name, q, r, expected) => {
    expect(publicTracking(q, r)).toMatchObject(expected);
  });
});
