import { suppressionApplies, SUPPRESSION_REASONS } from './suppression';

describe('suppressionApplies', () => {
  it('stops marketing mail for every reason, bypass or not', () => {
    for (const reason of SUPPRESSION_REASONS) {
      expect(suppressionApplies(reason, 'MARKETING', false)).toBe(true);
      expect(suppressionApplies(reason, 'MARKETING', true)).toBe(true);
    }
  });

  it('stops transactional mail for every reason but unsubscribe; with the override only a hard bounce stops it', () => {
    expect(SUPPRESSION_REASONS.filter((r) => suppressionApplies(r, 'TRANSACTIONAL', false))).toEqual(['hard_bounce', 'complaint', 'manual']);
    expect(SUPPRESSION_REASONS.filter((r) => suppressionApplies(r, 'TRANSACTIONAL', true))).toEqual(['hard_bounce']);
  });
});
