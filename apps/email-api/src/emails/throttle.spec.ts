import { allocate, bucketCapacity, refill } from './throttle';

describe('send throttle', () => {
  it('holds one second of the rate, at least one mail', () => {
    expect(bucketCapacity(14)).toBe(14);
    expect(bucketCapacity(0.5)).toBe(1);
  });

  it.each([
    [0, 14, 0.5, 7],
    [3, 14, 10, 14],
    [0.4, 0.5, 1, 0.9],
    [1, 0.5, 10, 1],
    [5, 14, -3, 5],
  ])('refills %d tokens at %d/s for %ds to %d', (tokens, rate, elapsed, expected) => {
    expect(refill(tokens, rate, elapsed)).toBeCloseTo(expected, 9);
  });

  it('grants whole tokens, at most what is due, projects taking turns up to the limit', () => {
    const wanted = new Map([
      ['a', 100],
      ['b', 2],
      ['c', 5],
    ]);
    const tokens = new Map([
      ['a', 14],
      ['b', 14],
      ['c', 0.99],
    ]);
    expect(allocate(wanted, tokens, 50)).toEqual(new Map([['a', 14], ['b', 2]]));
    // a limit shared in turns: a busy project does not take the whole round
    expect(allocate(wanted, tokens, 5)).toEqual(new Map([['a', 3], ['b', 2]]));
    expect(allocate(new Map([['a', 3]]), new Map([['a', 2.9999999999]]), 10)).toEqual(new Map([['a', 3]]));
    expect(allocate(new Map(), new Map(), 10)).toEqual(new Map());
  });
});
