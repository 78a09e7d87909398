export type { BenchMeasurement } from './measurement';
export { listenOnLoopback, sendRequest, inParallel } from './loopback';
export { BARE_SERVER, BARE_PROXY } from './baselines';
export { startBenchService, dropBenchSchema, type BenchService } from './bench-service';
export { LoadProcess, perSecond, type LoadRequest, type LoadResult } from './load-generator';
