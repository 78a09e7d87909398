import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = path.resolve(__dirname, '../../.ci/run');

/** Runs `ensure_package` of .ci/run (sourced: nothing else runs) with apt-get replaced by a recorder. */
async function ensurePackage(program: string, pkg: string): Promise<{ calls: string[]; log: string }> {
  const { stdout, stderr } = await run('bash', [
    '-c',
    `source "$1"; apt-get() { echo "apt-get $*"; }; ensure_package "$2" "$3"`,
    'ci-run-test',
    script,
    program,
    pkg,
  ]);
  return { calls: stdout.split('\n').filter(Boolean), log: stderr };
}

describe('.ci/run ensure_package', () => {
  it('leaves an installed program alone', async () => {
    const { calls, log } = await ensurePackage(process.execPath, 'chromium');
    expect(calls).toEqual([]);
    expect(log).toContain('chromium found');
  });

  it('installs the package (after apt-get update) when its program is missing', async () => {
    const { calls, log } = await ensurePackage('/nonexistent/dovecot', 'dovecot-imapd');
    expect(calls).toEqual(['apt-get update', 'apt-get install -y dovecot-imapd']);
    expect(log).toContain('/nonexistent/dovecot missing: installing the dovecot-imapd package');
  });
});

/**
 * Runs `main` of a copy of .ci/run placed in <tmp>/clone/.ci/run (with <tmp>/shared/ARCHITECTURE.md
 * when `withContract`), npm and the service and package steps replaced by recorders: the steps in
 * order, each npm call with the ARCHITECTURE_MD it saw.
 */
async function mainSteps(withContract: boolean, env: Record<string, string> = {}): Promise<{ steps: string[]; log: string; contract: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-run-'));
  try {
    fs.mkdirSync(path.join(dir, 'clone', '.ci'), { recursive: true });
    fs.copyFileSync(script, path.join(dir, 'clone', '.ci', 'run'));
    const contract = path.join(fs.realpathSync(dir), 'shared', 'ARCHITECTURE.md');
    if (withContract) {
      fs.mkdirSync(path.dirname(contract));
      fs.writeFileSync(contract, '# contract\n');
    }
    const { stdout, stderr } = await run(
      'bash',
      [
        '-c',
        `source "$1"; unset ARCHITECTURE_MD; ${Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v)}; `).join('')}` +
          'npm() { echo "npm $* [ARCHITECTURE_MD=${ARCHITECTURE_MD:-}]"; }; ensure_services() { echo services; }; ensure_package() { echo "package $2"; }; main',
        'ci-run-test',
        path.join(dir, 'clone', '.ci', 'run'),
      ],
    );
    return { steps: stdout.split('\n').filter(Boolean), log: stderr, contract };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('.ci/run main', () => {
  it('lints before the tests, and hands the tests the contract found in shared/ beside the clone', async () => {
    const { steps, log, contract } = await mainSteps(true);
    expect(steps).toEqual([
      `npm ci [ARCHITECTURE_MD=${contract}]`,
      `npm run lint [ARCHITECTURE_MD=${contract}]`,
      'services',
      'package chromium',
      'package dovecot-imapd',
      'package docker-compose',
      `npm test [ARCHITECTURE_MD=${contract}]`,
    ]);
    expect(log).toContain(`contract: ${contract}`);
  });

  it('runs without the contract where no shared/ sits beside the clone, and says so', async () => {
    const { steps, log } = await mainSteps(false);
    expect(steps).toEqual(['npm ci [ARCHITECTURE_MD=]', 'npm run lint [ARCHITECTURE_MD=]', 'services', 'package chromium', 'package dovecot-imapd', 'package docker-compose', 'npm test [ARCHITECTURE_MD=]']);
    expect(log).toContain('contract: none beside the clone');
  });

  it('keeps an ARCHITECTURE_MD given to it', async () => {
    const { steps } = await mainSteps(true, { ARCHITECTURE_MD: '/elsewhere/ARCHITECTURE.md' });
    expect(steps.at(-1)).toBe('npm test [ARCHITECTURE_MD=/elsewhere/ARCHITECTURE.md]');
  });
});
