import { statusAfterIncoming } from './conversation';

describe('statusAfterIncoming', () => {
  it.each([
    ['resolved', 'open'],
    ['snoozed', 'open'],
    ['open', 'open'],
    ['pending', 'pending'],
  ] as const)('%s → %s', (from, to) => {
    expect(statusAfterIncoming(from)).toBe(to);
  });
});
