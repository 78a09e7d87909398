// tools/jest/code-cache-runtime.cjs in a real Jest run: a scratch project of three test files, run in
// one process, where the second file's modules come from the code cache of the first's, and a module
// that does not parse still fails with Jest's own error.
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
  'three.test.js': "test('three', () => expect(() => require('./broken')).toThrow(SyntaxError));\n",
};

describe('tools/jest/code-cache-runtime.cjs', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-runtime-'));
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compiles the modules a test file loads again from the code cache, and leaves syntax errors to Jest', () => {
    const config = { rootDir: dir, runtime: path.join(root, 'tools/jest/code-cache-runtime.cjs'), transform: {}, testEnvironment: 'node', cache: false };
    const run = spawnSync(process.execPath, [path.join(root, 'node_modules/jest/bin/jest.js'), '--config', JSON.stringify(config), '--runInBand', '--ci'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, JEST_CODE_CACHE_STATS: '1' },
    });
    expect(run.stderr).toContain('Tests:       3 passed, 3 total');
    expect(run.stderr).not.toContain('compiling without the code cache');
    const stats = JSON.parse(/code cache: (\{.*\})/.exec(run.stderr)?.[1] ?? 'null');
    // Each module (ours, and Jest's own that every test file loads) parsed once; every later load from the cache.
    expect(stats).toEqual({ hits: expect.any(Number), misses: stats.modules, rejected: 0, modules: expect.any(Number) });
    expect(stats.hits).toBeGreaterThanOrEqual(stats.modules);
    expect(run.status).toBe(0);
  }, 60_000);
});
