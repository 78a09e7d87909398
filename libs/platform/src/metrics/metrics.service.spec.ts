import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MetricsService } from './metrics.service';

/** A full collection on demand (the test process runs without --expose-gc; @platform/testing's garbageCollector depends on this lib). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const sample = async (metrics: MetricsService) => (await metrics.registry.getSingleMetric('nodejs_heap_used_after_gc_bytes')!.get()).values;

/** Waits until the gauge reports a size other than `before` (0: none yet): the observer hears of a collection a moment after it. */
async function reportAfter(metrics: MetricsService, before: number): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const [value] = await sample(metrics);
    if (value.value > 0 && value.value !== before) return value.value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no full collection was reported');
}

describe('MetricsService: heap used after the last full collection', () => {
  it('reports 0 before the process has had a full collection', async () => {
    // The process's observer starts with its first MetricsService: no full collection heard of yet.
    const [value] = await sample(new MetricsService('metrics-spec'));
    expect(value.value).toBe(0);
  });

  it('reports what survived the last full collection: the used heap V8 counts right after it', async () => {
    // Jest's worker shares its heap with the suites it ran before (gigabytes at times), whose garbage
    // other collections free meanwhile: the figure is compared with V8's count taken right after each
    // forced collection, with and without 200,000 objects kept, not with the figure before it.
    const metrics = new MetricsService('metrics-spec');
    let reported = 0;
    for (const keep of [false, true]) {
      const kept = keep ? Array.from({ length: 200_000 }, (_v, i) => ({ i, s: `x${i}` })) : [];
      collectGarbage();
      const counted = getHeapStatistics().used_heap_size;
      reported = await reportAfter(metrics, reported);
      expect(Math.abs(reported - counted)).toBeLessThan(Math.max(4_000_000, counted * 0.02));
      expect(kept.length).toBe(keep ? 200_000 : 0);
    }
    expect(await metrics.registry.metrics()).toMatch(/^nodejs_heap_used_after_gc_bytes\{service="metrics-spec"\} \d+$/m);
  });
});
