import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = path.resolve(__dirname, '../../.ci/run');

/** Runs `ensure_chromium` of .ci/run (sourced: nothing else runs) with apt-get replaced by a recorder. */
async function ensureChromium(chromium: string): Promise<{ calls: string[]; log: string }> {
  const { stdout, stderr } = await run('bash', [
    '-c',
    `source "$1"; CHROMIUM="$2"; apt-get() { echo "apt-get $*"; }; ensure_chromium`,
    'ci-run-test',
    script,
    chromium,
  ]);
  return { calls: stdout.split('\n').filter(Boolean), log: stderr };
}

describe('.ci/run ensure_chromium', () => {
  it('leaves an installed browser alone', async () => {
    const { calls, log } = await ensureChromium(process.execPath);
    expect(calls).toEqual([]);
    expect(log).toContain('chromium found');
  });

  it('installs the chromium package (after apt-get update) when the browser is missing', async () => {
    const { calls, log } = await ensureChromium('/nonexistent/chromium');
    expect(calls).toEqual(['apt-get update', 'apt-get install -y chromium']);
    expect(log).toContain('chromium missing: installing the chromium package');
  });
});
