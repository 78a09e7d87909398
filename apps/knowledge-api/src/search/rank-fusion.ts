/**
 * Reciprocal rank fusion: each ranking gives an item 1/(k + rank) (rank from 1), summed over the
 * rankings; items are ordered by the sum. The score is divided by its maximum (first in every
 * ranking: n/(k+1)) so it lies in (0, 1].
 */
export const RRF_K = 60;

export function reciprocalRankFusion<T>(rankings: T[][], key: (item: T) => string | number, k = RRF_K): Array<{ item: T; score: number }> {
  const acc = new Map<string | number, { item: T; score: number; best: number }>();
  rankings.forEach((ranking) =>
    ranking.forEach((item, i) => {
      const id = key(item);
      const entry = acc.get(id) ?? { item, score: 0, best: Infinity };
      entry.score += 1 / (k + i + 1);
      entry.best = Math.min(entry.best, i);
      acc.set(id, entry);
    }),
  );
  const max = rankings.length / (k + 1);
  return [...acc.values()]
    .sort((a, b) => b.score - a.score || a.best - b.best)
    .map(({ item, score }) => ({ item, score: Math.min(1, score / max) }));
}
