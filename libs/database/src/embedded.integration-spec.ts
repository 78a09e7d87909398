import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');

/**
 * The embedded default (DATABASE_URL unset) end to end. PGlite cannot start inside Jest's VM, so the
 * scenario (__fixtures__/embedded-smoke.ts) runs in a child Node process and reports what it saw.
 */
describe('embedded PostgreSQL (PGlite over pglite-socket, in a child process)', () => {
  let dataDir: string;
  let report: Record<string, any>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-pg-'));
    const { stdout } = await run(
      process.execPath,
      ['-r', path.join(root, 'libs/testing/jest/register-ts.cjs'), path.join(__dirname, '__fixtures__/embedded-smoke.ts'), dataDir],
      { cwd: root, timeout: 90_000, maxBuffer: 10 * 1024 * 1024 },
    );
    report = JSON.parse(stdout.trim().split('\n').pop()!);
  }, 120_000);

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is one instance per process and data directory, persisted under DATA_DIR/pglite', async () => {
    expect(report.sameInstance).toBe(true);
    expect(report.version).toMatch(/PostgreSQL \d+.*PGlite/);
    expect(await readdir(dataDir)).toEqual(['pglite']);
    expect(report.bodies).toEqual(['also kept', 'kept']);
    expect(report.appliedAfterRestart).toEqual([]);
  });

  it('runs TypeORM migrations per schema, once even with concurrent runners', () => {
    const all = ['CreateNotes1700000000000', 'CreateJobs1700000000001'];
    expect(report.appliedA).toEqual(expect.arrayContaining([all, []]));
    expect(report.appliedB).toEqual(all);
    expect(report.runs).toEqual(['CreateJobs', 'CreateNotes']);
    expect(report.migrationsTables).toEqual(['svc_a', 'svc_b']);
    expect(report.savedId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('claims due rows without handing one to two claimers', () => {
    const ids: number[] = report.claims.flat();
    expect(new Set(ids).size).toBe(6);
    expect(ids.sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('serves several services of one process from one instance, one schema each, until the last closes', () => {
    expect(report.moduleSameUrl).toBe(true);
    expect(report.moduleSchemas).toEqual(['svc_a', 'svc_b', 'svc_one', 'svc_two']);
    expect(report.twoNotes).toBe(0);
    expect(report.stillServing).toBe(true);
    expect(report.instancesLeft).toBe(0);
  });
});
