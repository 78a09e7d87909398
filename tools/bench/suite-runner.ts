// Runs one app suite of tools/bench/suites.ts in this (child) process and sends its measurements to
// the parent over IPC: `fork('suite-runner.js', [suiteName])`. Also runnable by hand:
// `node dist/out/tools/bench/suite-runner.js email-api` prints the measurements.
import type { BenchMeasurement } from '@platform/bench';
import { APP_SUITES } from './suites';

export type SuiteMessage = { measurements: BenchMeasurement[] } | { error: string };

function reply(message: SuiteMessage): void {
  if (process.send) process.send(message, () => process.exit('error' in message ? 1 : 0));
  else {
    if ('error' in message) process.stderr.write(`${message.error}\n`);
    else console.table(message.measurements);
    process.exit('error' in message ? 1 : 0);
  }
}

async function main(): Promise<BenchMeasurement[]> {
  const name = process.argv[2];
  const suite = APP_SUITES.find((s) => s.name === name);
  if (!suite) throw new Error(`unknown suite "${name}" (known: ${APP_SUITES.map((s) => s.name).join(', ')})`);
  const measurements = await suite.run();
  const names = measurements.map((m) => m.name);
  const missing = suite.measures.filter((m) => !names.includes(m) && !suite.optional?.includes(m));
  const unknown = names.filter((n) => !suite.measures.includes(n));
  if (missing.length || unknown.length) {
    throw new Error(`suite ${name} returned [${names.join(', ')}], expected [${suite.measures.join(', ')}]`);
  }
  for (const m of measurements) {
    if (![m.value, m.baseline, m.ratio].every(Number.isFinite)) throw new Error(`${m.name}: non-finite figure ${JSON.stringify(m)}`);
  }
  return measurements;
}

main().then(
  (measurements) => reply({ measurements }),
  (err: unknown) => reply({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
