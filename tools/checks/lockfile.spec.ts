import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

/** `npm ci` (the README's first command, and CI's) refuses a lock file with dangling optional edges. */
describe('package-lock.json', () => {
  it('installs with npm ci: no optional edge points at a package missing from the lock file', async () => {
    await expect(run(process.execPath, [path.join(root, 'tools/lockfile.cjs'), '--check'], { cwd: root })).resolves.toBeDefined();
  });

  it('the check finds a dangling edge', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS tool script
    const { pruneDanglingOptional } = require(path.join(root, 'tools/lockfile.cjs'));
    const lock = {
      packages: {
        '': {},
        'node_modules/a': { optionalDependencies: { 'a-linux': '1.0.0', 'a-darwin': '1.0.0' } },
        'node_modules/a-linux': { version: '1.0.0' },
      },
    };
    const { dangling, lock: pruned } = pruneDanglingOptional(lock);
    expect(dangling).toEqual(['node_modules/a -> a-darwin']);
    expect(pruned.packages['node_modules/a'].optionalDependencies).toEqual({ 'a-linux': '1.0.0' });
  });
});
