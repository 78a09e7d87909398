/**
 * The result of an app's own benchmark suite (apps/<app>/bench/*.bench.ts): one figure next to its
 * baseline measured in the same run. `npm run bench` (tools/bench.ts) runs the suites and prints them.
 */
export interface BenchMeasurement {
  /** `<app>: <what>`, shown in the table and used as key in dist/bench/results.json */
  name: string;
  value: number;
  unit: string;
  baseline: number;
  /** value / baseline */
  ratio: number;
  /** how it was measured and what the baseline is */
  detail: string;
}
