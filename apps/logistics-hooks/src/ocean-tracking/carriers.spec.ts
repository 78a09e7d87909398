import { CARRIER_PREFIXES, detectCarrier } from './carriers';

describe('detectCarrier', () => {
  const table: [string, string][] = Object.entries(CARRIER_PREFIXES).flatMap(([code, c]) => c.prefixes.map((p) => [p, code] as [string, string]));

  it('knows every prefix of the spec', () => {
    expect(table).toHaveLength(37);
  });

  it.each(table)('%s → %s', (prefix, code) => {
    expect(detectCarrier(`${prefix}1234567`)?.code).toBe(code);
    expect(detectCarrier(`${prefix.toLowerCase()}1234567`)?.code).toBe(code);
  });

  it.each(['ABCU1234567', 'XX', ''])('%p has no carrier', (ref) => {
    expect(detectCarrier(ref)).toBeNull();
  });
});
