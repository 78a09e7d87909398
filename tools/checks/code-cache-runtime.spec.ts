// tools/jest/code-cache-runtime.cjs in real Jest runs of a scratch project, in one process: the second
// test file's modules come from the code cache of the first's, and no test file's context is kept
// alive by the cache (Jest's --detectLeaks); a module that does not parse still fails with Jest's own
// error (a run of its own: Jest keeps such a file's context itself).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

const files: Record<string, string> = {
  'shared.js': 'module.exports = { twice: (n) => n * 2 };\n',
  'broken.js': 'module.exports = {;\n',
  'one.test.js': "test('one', () => expect(require('./shared').twice(2)).toBe(4));\n",
  'two.test.js': "test('two', () => expect(require('./shared').twice(3)).toBe(6));\n",
  'broken.test.js': "test('broken', () => expect(() => require('./broken')).toThrow(SyntaxError));\n",
};

describe('tools/jest/code-cache-runtime.cjs', () => {
  let dir: string;

  /** Jest in band on the scratch project with the runtime, the cache's counts printed on exit. */
  function jest(...args: string[]): { status: number | null; stderr: string; stats: { hits: number; misses: number; rejected: number; modules: number } | null } {
    const config = { rootDir: dir, runtime: path.join(root, 'tools/jest/code-cache-runtime.cjs'), transform: {}, testEnvironment: 'node', cache: false };
    const run = spawnSync(process.execPath, [path.join(root, 'node_modules/jest/bin/jest.js'), '--config', JSON.stringify(config), '--runInBand', '--ci', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, JEST_CODE_CACHE_STATS: '1' },
    });
    return { status: run.status, stderr: run.stderr, stats: JSON.parse(/code cache: (\{.*\})/.exec(run.stderr)?.[1] ?? 'null') };
  }

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-runtime-'));
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compiles the modules a later test file loads again from the code cache, and keeps no test file alive', () => {
    const run = jest('--detectLeaks', '(one|two)\\.test\\.js$');
    expect(run.stderr).not.toContain('compiling without the code cache');
    expect(run.stderr).not.toContain('leaking memory');
    expect(run.stderr).toContain('Tests:       2 passed, 2 total');
    // Each module (ours, and Jest's own that every test file loads) parsed once; the second file's from the cache.
    expect(run.stats).toEqual({ hits: expect.any(Number), misses: run.stats?.modules, rejected: 0, modules: expect.any(Number) });
    expect(run.stats!.hits).toBeGreaterThan(0);
    expect(run.status).toBe(0);
  }, 60_000);

  it("leaves a module that does not parse to Jest's own SyntaxError", () => {
    const run = jest('broken\\.test\\.js$');
    expect(run.stderr).toContain('Tests:       1 passed, 1 total');
    expect(run.status).toBe(0);
  }, 60_000);
});
