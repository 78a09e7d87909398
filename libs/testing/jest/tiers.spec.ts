// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS Jest configuration
const { testMatch, selectedTier } = require('./tiers.cjs');

describe('test tiers', () => {
  it('matches one suffix per tier, and all three without TEST_TIER', () => {
    expect(testMatch({ TEST_TIER: 'unit' })).toEqual(['<rootDir>/**/*.spec.ts']);
    expect(testMatch({ TEST_TIER: 'integration' })).toEqual(['<rootDir>/**/*.integration-spec.ts']);
    expect(testMatch({ TEST_TIER: 'e2e' })).toEqual(['<rootDir>/**/*.e2e-spec.ts']);
    expect(testMatch({})).toEqual(['<rootDir>/**/*.spec.ts', '<rootDir>/**/*.integration-spec.ts', '<rootDir>/**/*.e2e-spec.ts']);
    expect(testMatch({ TEST_TIER: '' })).toHaveLength(3);
  });

  it('refuses an unknown tier, naming the known ones', () => {
    expect(() => selectedTier({ TEST_TIER: 'units' })).toThrow('TEST_TIER must be one of unit, integration, e2e (or unset for all tiers), got "units"');
  });
});
