import { reciprocalRankFusion } from './rank-fusion';

describe('reciprocalRankFusion', () => {
  it('ranks items found by both lists first, scores in (0, 1]', () => {
    const fused = reciprocalRankFusion([[1, 2, 3], [3, 1, 4]], (x) => x);
    expect(fused.map((f) => f.item)).toEqual([1, 3, 2, 4]);
    expect(fused[0].score).toBeLessThanOrEqual(1);
    expect(fused.every((f) => f.score > 0 && f.score <= 1)).toBe(true);
    expect(reciprocalRankFusion([[7], [7]], (x) => x)[0].score).toBe(1);
  });
});
