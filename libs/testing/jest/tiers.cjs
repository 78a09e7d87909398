'use strict';
// The three test tiers (STYLE.md "Tests"), chosen with TEST_TIER=unit|integration|e2e; unset runs all.
//   unit         *.spec.ts              pure logic, mocked ports: no PostgreSQL, RabbitMQ or Redis
//   integration  *.integration-spec.ts  real servers, one throwaway database per file
//   e2e          *.e2e-spec.ts          an app (or the stack) booted and driven over HTTP
const TIERS = {
  unit: '<rootDir>/**/*.spec.ts',
  integration: '<rootDir>/**/*.integration-spec.ts',
  e2e: '<rootDir>/**/*.e2e-spec.ts',
};

/** The tier named by TEST_TIER, or undefined for all; throws on an unknown name. */
function selectedTier(env = process.env) {
  const tier = env.TEST_TIER;
  if (tier === undefined || tier === '') return undefined;
  if (!Object.prototype.hasOwnProperty.call(TIERS, tier)) {
    throw new Error(`TEST_TIER must be one of ${Object.keys(TIERS).join(', ')} (or unset for all tiers), got "${tier}"`);
  }
  return tier;
}

/** Jest's testMatch for the selected tier (every tier when none is). */
function testMatch(env = process.env) {
  const tier = selectedTier(env);
  return tier ? [TIERS[tier]] : Object.values(TIERS);
}

module.exports = { TIERS, selectedTier, testMatch };
