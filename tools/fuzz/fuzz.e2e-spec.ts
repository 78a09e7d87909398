// The small fuzz run of `npm test`: every service (and the gateway) started from dist/ as deployed,
// 100 generated requests each from its own /api/docs-json (FUZZ_SEED to replay a run; a fixed seed
// by default so that a failure here is the same on every machine). `npm run fuzz` is the big run.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { formatFailures, formatTable, runFuzz, type ServiceResult } from './run';

const root = path.resolve(__dirname, '../..');
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261128;

describe('fuzz (small run: 100 requests per service, 25 SMTP sessions)', () => {
  let results: ServiceResult[];

  beforeAll(async () => {
    execFileSync(process.execPath, ['tools/build.mjs'], { cwd: root, stdio: 'pipe' });
    results = await runFuzz({ root, seed, runs: 100, concurrency: 4 });
    process.stdout.write(`${formatTable(results)}\n`);
  }, 240_000);

  it('fuzzes every service and the gateway', () => {
    expect(results.map((r) => r.service).sort()).toEqual(
      [
        'auth-api',
        'automation-api',
        'autostart-proxy',
        'conversation-api',
        'email-api',
        'email-api (smtp)',
        'gateway',
        'knowledge-api',
        'knowledge-mcp',
        'logistics-hooks',
        'transcribe-api',
      ].sort(),
    );
    // HTTP services 100 requests each (a few may be ones Node's client cannot write); the SMTP listener 25 sessions.
    for (const r of results) expect({ service: r.service, enough: r.requests >= (r.service.endsWith('(smtp)') ? 25 : 95) }).toEqual({ service: r.service, enough: true });
  });

  it('gets no 5xx, no unanswered request and no error outside the spec shape, and crashes nothing', () => {
    const report = formatFailures(results);
    expect({ seed, report }).toEqual({ seed, report: '' });
    expect(results.filter((r) => r.crashed).map((r) => r.service)).toEqual([]);
  });

  it('leaves every service healthy and the other tenants\' seeded records unchanged', () => {
    expect(results.filter((r) => !r.healthy).map((r) => r.service)).toEqual([]);
    expect(results.filter((r) => r.seedUnchanged === false).map((r) => r.service)).toEqual([]);
    expect(results.filter((r) => r.seedUnchanged === true).map((r) => r.service).sort()).toEqual(['auth-api', 'automation-api', 'conversation-api', 'email-api']);
  });
});
