// `npm run fuzz`: every service started in its own process (tools/fuzz/stack.ts), fuzzed from its own
// /api/docs-json with fast-check (tools/fuzz/generate.ts), the gateway last with every service's
// requests through its prefix; prints a table and each failure with the seed and request that
// reproduce it; exits 1 on any 5xx, bad error, unanswered request, crash, unhealthy service or
// changed seeded record.
//   FUZZ_SEED (default: random, printed), FUZZ_RUNS (requests per service, default 2000),
//   FUZZ_ONLY (comma-separated services, e.g. email-api,gateway), FUZZ_CONCURRENCY (default 4)
import fs from 'node:fs';
import path from 'node:path';
import { formatFailures, formatTable, runFuzz } from './fuzz/run';

function workspaceRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'tools/build.mjs'))) return dir;
  }
  throw new Error(`fuzz: cannot find the workspace root (tools/build.mjs) above ${__dirname}`);
}

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d{1,10}$/.test(raw)) throw new Error(`${name} must be an integer (got "${raw}")`);
  return Number(raw);
}

async function main(): Promise<void> {
  const seed = integer('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31));
  const runs = integer('FUZZ_RUNS', 2000);
  const concurrency = Math.max(1, integer('FUZZ_CONCURRENCY', 4));
  const only = (process.env.FUZZ_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  process.stdout.write(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}${only.length ? ` FUZZ_ONLY=${only.join(',')}` : ''}\n`);
  const results = await runFuzz({ root: workspaceRoot(), seed, runs, only, concurrency, log: (line) => process.stdout.write(`${line}\n`) });
  const failures = formatFailures(results);
  if (failures) process.stdout.write(`\n${failures}\n`);
  if (process.env.FUZZ_VERBOSE) for (const r of results) process.stdout.write(`${r.service}: ${JSON.stringify(r.statuses)}${r.documented5xx ? ` documented 5xx ${JSON.stringify(r.documented5xx)}` : ''}\n`);
  process.stdout.write(`\n${formatTable(results)}\n\nFUZZ_SEED=${seed}\n`);
  const bad = results.some((r) => r.failures.length > 0 || r.crashed || !r.healthy);
  process.exitCode = bad ? 1 : 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`fuzz: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
