import { carrierName, normalizeCarrier, parseOceanQuery } from './ocean-references';

describe('ocean-track references', () => {
  it.each([
    // tracking number, carrier, type → kind, carrier
    ['MAEU7654320', undefined, undefined, { ok: true, reference: 'MAEU7654320', kind: 'container', carrier: 'MAERSK' }],
    ['csqu 305438-3', undefined, undefined, { ok: true, reference: 'CSQU3054383', kind: 'container', carrier: null }],
    ['CSQU3054383', 'cma-cgm', undefined, { ok: true, kind: 'container', carrier: 'CMA' }],
    ['MEDUAB123456', undefined, undefined, { ok: true, kind: 'bill_of_lading', carrier: 'MSC' }],
    ['HLCUHAM123456789', undefined, undefined, { ok: true, kind: 'bill_of_lading', carrier: 'HAPAG' }],
    ['987654321', 'Maersk', undefined, { ok: true, kind: 'booking', carrier: 'MAERSK' }],
    ['987654321', undefined, undefined, { ok: true, kind: 'booking', carrier: null }],
    ['SHA1234567', 'ONE', 'bill_of_lading', { ok: true, kind: 'bill_of_lading', carrier: 'ONE' }],
    ['MEDUAB123456', 'msc', 'booking', { ok: true, kind: 'booking', carrier: 'MSC' }],
    ['MSCU1234567', undefined, undefined, { ok: false, code: 'INVALID_TRACKING_NUMBER' }],
    ['987654321', 'ACME', undefined, { ok: false, code: 'UNKNOWN_CARRIER' }],
    ['12-34', undefined, 'container', { ok: false, code: 'INVALID_TRACKING_NUMBER' }],
    ['MEDU' + 'X'.repeat(20), undefined, undefined, { ok: false, code: 'INVALID_TRACKING_NUMBER' }],
    ['abc$%1', undefined, undefined, { ok: false, code: 'INVALID_TRACKING_NUMBER' }],
  ] as const)('%s (carrier %s, type %s)', (number, carrier, type, expected) => {
    expect(parseOceanQuery(number, carrier, type)).toMatchObject(expected);
  });

  it('names the expected check digit', () => {
    const r = parseOceanQuery('MSCU1234567');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/check digit should be \d/);
    if (!r.ok) expect(r.message).not.toContain('should be 7');
  });

  it.each([
    ['MAERSK', 'MAERSK'], ['maersk', 'MAERSK'], ['CMA CGM', 'CMA'], ['Hapag-Lloyd', 'HAPAG'], ['yang ming', 'YANG_MING'], ['one', 'ONE'], ['EVERGREEN', 'EVERGREEN'], ['foo', null],
  ])('carrier %p → %p', (input, code) => {
    expect(normalizeCarrier(input)).toBe(code);
  });

  it('names carriers', () => {
    expect(carrierName('HAPAG')).toBe('Hapag-Lloyd');
    expect(carrierName('MAERSK')).toBe('Maersk');
  });
});
