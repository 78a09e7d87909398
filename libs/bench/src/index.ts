export type { BenchMeasurement } from './measurement';
export { listenOnLoopback, sendRequest, inParallel } from './loopback';
export { BARE_SERVER, BARE_PROXY } from './baselines';
export { startBenchService, dropBenchSchema, type BenchService } from './bench-service';
export { LoadProcess, perSecond, type GetLoadResult, type LoadRequest, type LoadResult, type PostLoadResult } from './load-generator';
