import { canMoveError } from './error-status';

describe('error record state moves', () => {
  it.each([
    ['open', 'open', true],
    ['open', 'fix proposed', true],
    ['open', 'resolved', true],
    ['fix proposed', 'open', true],
    ['fix proposed', 'fix proposed', true],
    ['fix proposed', 'resolved', true],
    ['resolved', 'open', true],
    ['resolved', 'fix proposed', false],
    ['resolved', 'resolved', true],
  ] as const)('%s → %s: %p', (from, to, allowed) => {
    expect(canMoveError(from, to)).toBe(allowed);
  });
});
