import { decideWinner, drawTestGroup, pickWinner, rankVariants, sampleCoin, significanceOfBest, testGroupSize, twoProportionZTest, variantContent, type SamplingState } from './ab-test';

const CAMPAIGN = '7d3c5a8e-1f0b-4c59-9a43-2b8e4f1d6c70';
const ids = (n: number, prefix = 'cnt_') => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);

/** Draws over the contacts in fan-out batches of `batch`, carrying the state from batch to batch. */
function drawAll(contacts: string[], state: SamplingState, variants: number, batch = 500, campaign = CAMPAIGN) {
  const picks: Array<{ contactId: string; variant: number }> = [];
  for (let i = 0; i < contacts.length; i += batch) {
    const r = drawTestGroup(state, contacts.slice(i, i + batch), campaign, variants);
    picks.push(...r.picks);
    state = r.state;
  }
  return { picks, state };
}

describe('testGroupSize', () => {
  it.each([
    [1000, 20, 2, 200],
    [40, 20, 2, 8],
    [41, 20, 3, 8], // 8.2
    [43, 20, 2, 9], // 8.6
    [5, 10, 2, 2], // 0.5 → at least one per variant
    [3, 50, 4, 3], // never more than the audience
    [0, 20, 2, 0],
    [10, 25, 2, 3], // 2.5 rounds half up
  ])('audience %i at %i %% with %i variants: %i', (audience, share, variants, expected) => {
    expect(testGroupSize(audience, share, variants)).toBe(expected);
  });
});

describe('drawTestGroup', () => {
  it.each([
    [10_000, 20, 2],
    [10_000, 10, 3],
    [997, 33, 4],
    [40, 20, 2],
  ])('audience %i, %i %%, %i variants: exactly the test size, variants even to one', (audience, share, variants) => {
    const testSize = testGroupSize(audience, share, variants);
    const { picks, state } = drawAll(ids(audience), { audience, testSize, seen: 0, selected: 0 }, variants);
    expect(picks).toHaveLength(testSize);
    expect(state).toEqual({ audience, testSize, seen: audience, selected: testSize });
    expect(new Set(picks.map((p) => p.contactId)).size).toBe(testSize);
    const sizes = Array.from({ length: variants }, (_, v) => picks.filter((p) => p.variant === v).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(testSize);
  });

  it('is the same draw whatever the batch size (a batch run again after a restart draws the same contacts)', () => {
    const contacts = ids(3000);
    const start: SamplingState = { audience: 3000, testSize: 600, seen: 0, selected: 0 };
    const whole = drawAll(contacts, start, 2, 3000);
    expect(drawAll(contacts, start, 2, 500).picks).toEqual(whole.picks);
    expect(drawAll(contacts, start, 2, 7).picks).toEqual(whole.picks);
  });

  it('draws another group for another campaign, and spreads it over the whole audience (not its first contacts)', () => {
    const contacts = ids(5000);
    const start: SamplingState = { audience: 5000, testSize: 1000, seen: 0, selected: 0 };
    const a = new Set(drawAll(contacts, start, 2).picks.map((p) => p.contactId));
    const b = new Set(drawAll(contacts, start, 2, 500, 'another-campaign').picks.map((p) => p.contactId));
    const shared = [...a].filter((id) => b.has(id)).length;
    // two independent 20 % samples share about 20 % of their members (200 expected)
    expect(shared).toBeGreaterThan(120);
    expect(shared).toBeLessThan(280);
    // each fifth of the audience holds about a fifth of the group
    for (let q = 0; q < 5; q++) {
      const inQuintile = contacts.slice(q * 1000, (q + 1) * 1000).filter((id) => a.has(id)).length;
      expect(inQuintile).toBeGreaterThan(140);
      expect(inQuintile).toBeLessThan(260);
    }
  });

  it('an audience that shrank gives a smaller group; one that grew still fills the group', () => {
    const shrunk = drawAll(ids(800), { audience: 1000, testSize: 200, seen: 0, selected: 0 }, 2);
    expect(shrunk.picks.length).toBeLessThanOrEqual(200);
    expect(shrunk.picks.length).toBeGreaterThan(100);
    const grown = drawAll(ids(1200), { audience: 1000, testSize: 200, seen: 0, selected: 0 }, 2);
    expect(grown.picks).toHaveLength(200);
  });

  it('takes nobody once the group is full', () => {
    expect(drawTestGroup({ audience: 10, testSize: 2, seen: 5, selected: 2 }, ids(5), CAMPAIGN, 2).picks).toEqual([]);
  });

  it('sampleCoin is in [0, 1) and depends on both ids', () => {
    const coins = ids(2000).map((id) => sampleCoin(CAMPAIGN, id));
    expect(coins.every((c) => c >= 0 && c < 1)).toBe(true);
    expect(coins.filter((c) => c < 0.5).length).toBeGreaterThan(900);
    expect(coins.filter((c) => c < 0.5).length).toBeLessThan(1100);
    expect(sampleCoin(CAMPAIGN, 'cnt_1')).toBe(sampleCoin(CAMPAIGN, 'cnt_1'));
    expect(sampleCoin(CAMPAIGN, 'cnt_1')).not.toBe(sampleCoin('other', 'cnt_1'));
  });
});

describe('pickWinner', () => {
  it('the highest rate wins, compared as rates (not counts)', () => {
    expect(pickWinner([{ successes: 10, trials: 100 }, { successes: 12, trials: 100 }])).toEqual({ index: 1, tie: false });
    // 9/50 = 18 % beats 12/100 = 12 %
    expect(pickWinner([{ successes: 12, trials: 100 }, { successes: 9, trials: 50 }, { successes: 1, trials: 10 }])).toEqual({ index: 1, tie: false });
  });

  it('a tie for the highest goes to the first tied variant', () => {
    expect(pickWinner([{ successes: 5, trials: 50 }, { successes: 10, trials: 100 }])).toEqual({ index: 0, tie: true });
    expect(pickWinner([{ successes: 1, trials: 50 }, { successes: 3, trials: 30 }, { successes: 6, trials: 60 }])).toEqual({ index: 1, tie: true });
    expect(pickWinner([{ successes: 0, trials: 0 }, { successes: 0, trials: 4 }])).toEqual({ index: 0, tie: true });
  });

  it('exact on rates that floating point would round alike', () => {
    // 1/3 vs 333333/1000000: different, the first is higher
    expect(pickWinner([{ successes: 333_333, trials: 1_000_000 }, { successes: 1, trials: 3 }])).toEqual({ index: 1, tie: false });
  });

  it('rankVariants orders best first, ties in variant order', () => {
    expect(rankVariants([{ successes: 1, trials: 10 }, { successes: 3, trials: 10 }, { successes: 3, trials: 10 }, { successes: 0, trials: 10 }])).toEqual([1, 2, 0, 3]);
  });
});

describe('twoProportionZTest (pooled; reference values from scipy/statsmodels proportions_ztest)', () => {
  it.each([
    [200, 1000, 150, 1000, 2.942449, 0.003256, true],
    [120, 1000, 90, 1000, 2.188266, 0.02865, true],
    [530, 5000, 480, 5000, 1.659317, 0.097052, false],
    [10, 50, 5, 50, 1.400280, 0.161429, false],
    [1, 4, 0, 4, 1.069045, 0.285049, false],
    [30, 100, 30, 100, 0, 1, false],
  ])('%i/%i vs %i/%i: z %d, p %d', (x1, n1, x2, n2, z, p, significant) => {
    const r = twoProportionZTest({ successes: x1, trials: n1 }, { successes: x2, trials: n2 });
    expect(r.z).toBeCloseTo(z, 5);
    expect(r.pValue).toBeCloseTo(p, 5);
    expect(r.significant).toBe(significant);
  });

  it('is symmetric: b − a has the opposite z and the same p-value', () => {
    const ab = twoProportionZTest({ successes: 120, trials: 1000 }, { successes: 90, trials: 1000 });
    const ba = twoProportionZTest({ successes: 90, trials: 1000 }, { successes: 120, trials: 1000 });
    expect(ba.z).toBeCloseTo(-ab.z, 10);
    expect(ba.pValue).toBeCloseTo(ab.pValue, 10);
  });

  it('says nothing without trials, or when both rates are 0 or both 1', () => {
    expect(twoProportionZTest({ successes: 0, trials: 0 }, { successes: 3, trials: 10 })).toEqual({ z: 0, pValue: 1, significant: false });
    expect(twoProportionZTest({ successes: 0, trials: 20 }, { successes: 0, trials: 20 })).toEqual({ z: 0, pValue: 1, significant: false });
    expect(twoProportionZTest({ successes: 20, trials: 20 }, { successes: 10, trials: 10 })).toEqual({ z: 0, pValue: 1, significant: false });
  });

  it('significanceOfBest tests the best against the runner-up', () => {
    const r = significanceOfBest([{ successes: 90, trials: 1000 }, { successes: 20, trials: 1000 }, { successes: 120, trials: 1000 }]);
    expect(r.variants).toEqual([2, 0]);
    expect(r.test.z).toBeCloseTo(2.188266, 5);
  });
});

describe('variantContent', () => {
  it('a variant replaces what it gives and keeps the campaign\'s rest', () => {
    const campaign = { subject: 'Hello', body: '<p>Hi</p>' };
    expect(variantContent(campaign, { subject: 'Hey', body: null })).toEqual({ subject: 'Hey', body: '<p>Hi</p>' });
    expect(variantContent(campaign, { subject: null, body: '<p>Yo</p>' })).toEqual({ subject: 'Hello', body: '<p>Yo</p>' });
  });
});

describe('decideWinner', () => {
  const at = new Date('2026-03-01T12:00:00Z');
  const figures = [{ successes: 12, trials: 100 }, { successes: 30, trials: 100 }];

  it('by the metric: the best rate, the figures and the significance recorded', () => {
    expect(decideWinner('opens', figures, 'wait', at)).toEqual({
      winner: 1,
      decision: {
        by: 'metric',
        trigger: 'wait',
        tie: false,
        at: '2026-03-01T12:00:00.000Z',
        figures: [
          { variant: 'A', delivered: 100, successes: 12, rate: 0.12 },
          { variant: 'B', delivered: 100, successes: 30, rate: 0.3 },
        ],
        significance: { metric: 'opens', variants: ['B', 'A'], z: 3.1249, pValue: 0.001779, significant: true },
      },
    });
  });

  it('forced: the named variant wins whatever the figures', () => {
    const { winner, decision } = decideWinner('clicks', figures, 'early', at, 0);
    expect(winner).toBe(0);
    expect(decision).toMatchObject({ by: 'forced', trigger: 'early', tie: false });
  });

  it('a tie by the metric goes to A and says so', () => {
    expect(decideWinner('clicks', [{ successes: 0, trials: 4 }, { successes: 0, trials: 4 }], 'wait', at)).toMatchObject({ winner: 0, decision: { by: 'metric', tie: true } });
  });
});
