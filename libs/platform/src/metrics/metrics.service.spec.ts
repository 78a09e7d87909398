import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MetricsService } from './metrics.service';

/** A full collection on demand (the test process runs without --expose-gc; @platform/testing's garbageCollector depends on this lib). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const sample = async (metrics: MetricsService) => (await metrics.registry.getSingleMetric('nodejs_heap_used_after_gc_bytes')!.get()).values;

/** Collects, then waits until the gauge reports a size other than `before` (0: none yet) (the observer hears of a collection a moment after it). */
async function collectAndSample(metrics: MetricsService, before?: number): Promise<number> {
  collectGarbage();
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

  it('reports what survived the last full collection, and follows it up and down', async () => {
    const metrics = new MetricsService('metrics-spec');
    const first = await collectAndSample(metrics);
    expect(first).toBeGreaterThan(1_000_000);

    let kept: unknown[] | undefined = Array.from({ length: 200_000 }, (_v, i) => ({ i, s: `x${i}` }));
    const grown = await collectAndSample(metrics, first);
    expect(grown).toBeGreaterThan(first + 5_000_000);
    expect(kept.length).toBe(200_000);

    kept = undefined;
    const released = await collectAndSample(metrics, grown);
    expect(released).toBeLessThan(grown - 5_000_000);
    expect(await metrics.registry.metrics()).toMatch(/^nodejs_heap_used_after_gc_bytes\{service="metrics-spec"\} \d+$/m);
  });
});
