import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/**
 * V8's used heap right after the process's last full (mark-sweep-compact) collection: what survived
 * it, so a leak shows as this rising from one collection to the next, while resident memory and the
 * heap sampled at any moment also hold garbage not yet collected and space V8 keeps for later. One
 * observer per process (several apps share one under `npm start`); it starts with the first reader
 * and does not keep the process alive.
 */
let lastBytes: number | undefined;
let observer: PerformanceObserver | undefined;

function observe(): void {
  if (observer) return;
  observer = new PerformanceObserver((list) => {
    // a 'gc' entry carries `detail.kind` (not in the PerformanceEntry typings)
    const kinds = list.getEntries().map((e) => (e as unknown as { detail?: { kind?: number } }).detail?.kind);
    if (kinds.includes(constants.NODE_PERFORMANCE_GC_MAJOR)) {
      lastBytes = getHeapStatistics().used_heap_size;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

/** Bytes used after the last full collection, or undefined before the first one; starts observing. */
export function heapUsedAfterLastGc(): number | undefined {
  observe();
  return lastBytes;
}
