// The feature generator end to end, in a scratch copy of the workspace: `npx nx g
// @platform/nx-plugin:feature <app> shipping-notes` into three apps of different styles (auth-api:
// entities and `{detail}` errors; logistics-hooks: SQL repositories and the envelope; autostart-proxy:
// SQL and `{error}`), then typecheck and lint what it wrote and run each generated e2e test against
// the real database (one Jest run for the three). The real tree is never touched.
import fs from 'node:fs';
import path from 'node:path';
import { scratchWorkspace, type ScratchWorkspace } from '../../../test/scratch-workspace';

const FEATURE = 'shipping-notes';
const APPS = ['auth-api', 'logistics-hooks', 'autostart-proxy'];
/** The typecheck's project: the generated files only (tsc follows their imports). */
const CHECK_CONFIG = 'tsconfig.feature-check.json';

/** What a failing command printed (tsc fails on any error in its program, including files we did not write). */
function outputOf(run: () => string): string {
  try {
    return run();
  } catch (e) {
    return (e as Error).message;
  }
}

describe(`npx nx g @platform/nx-plugin:feature <app> ${FEATURE} in a scratch workspace`, () => {
  let workspace: ScratchWorkspace;
  let changed: string[];
  const written = () => changed.filter((f) => f.endsWith('.ts'));

  beforeAll(() => {
    workspace = scratchWorkspace('feature-generator-');
    for (const app of APPS) workspace.run('npx', ['nx', 'g', '@platform/nx-plugin:feature', app, FEATURE]);
    changed = workspace.changed();
  }, 180_000);

  afterAll(() => {
    workspace?.remove();
  });

  it('writes the feature folder and a migration, and edits only the root module', () => {
    const allowed = new RegExp(`^apps/(${APPS.join('|')})/src/(${FEATURE}/|migrations/\\d{13}-CreateShippingNotes\\.ts$|app\\.module\\.ts$)`);
    expect(changed.filter((f) => !allowed.test(f))).toEqual([]);
    const auth = changed.filter((f) => f.startsWith('apps/auth-api/')).map((f) => f.replace(/\d{13}/, '<timestamp>')).sort();
    expect(auth).toEqual([
      'apps/auth-api/src/app.module.ts',
      'apps/auth-api/src/migrations/<timestamp>-CreateShippingNotes.ts',
      'apps/auth-api/src/shipping-notes/dto/shipping-note.dto.ts',
      'apps/auth-api/src/shipping-notes/entities/shipping-note.entity.ts',
      'apps/auth-api/src/shipping-notes/shipping-notes.controller.ts',
      'apps/auth-api/src/shipping-notes/shipping-notes.e2e-spec.ts',
      'apps/auth-api/src/shipping-notes/shipping-notes.module.ts',
      'apps/auth-api/src/shipping-notes/shipping-notes.repository.ts',
      'apps/auth-api/src/shipping-notes/shipping-notes.service.ts',
    ]);
    // SQL repositories where the app has no entities of its own
    expect(changed.filter((f) => f.includes('/entities/'))).toEqual(['apps/auth-api/src/shipping-notes/entities/shipping-note.entity.ts']);
  });

  it('wires the module, the migration and (in auth-api) the entity into the root module', () => {
    const read = (f: string) => fs.readFileSync(path.join(workspace.dir, f), 'utf8');
    const auth = read('apps/auth-api/src/app.module.ts');
    expect(auth).toMatch(/export const AUTH_ENTITIES = \[FiscalUser, LogisticsUser, RefreshToken, ShippingNote\];/);
    expect(auth).toMatch(/export const AUTH_MIGRATIONS = \[[^\]]*, CreateShippingNotes\d{13}\];/);
    expect(auth).toMatch(/LogisticsModule,\n\s+ShippingNotesModule,\n\s+\],/);
    const logistics = read('apps/logistics-hooks/src/app.module.ts');
    // One line, or one per migration (the generator appends in the list's own layout).
    expect(logistics).toMatch(/export const LOGISTICS_HOOKS_MIGRATIONS = \[[^\]]*,\s+CreateShippingNotes\d{13},?\s*\];/);
    expect(logistics).toContain("import { ShippingNotesModule } from './shipping-notes/shipping-notes.module';");
  });

  it('typechecks', () => {
    const files = written();
    fs.writeFileSync(path.join(workspace.dir, CHECK_CONFIG), JSON.stringify({ extends: './tsconfig.base.json', files }));
    const output = outputOf(() => workspace.run('npx', ['tsc', '-p', CHECK_CONFIG, '--noEmit', '--pretty', 'false']));
    // Only diagnostics of the files the generator wrote: others may be mid-edit elsewhere in the copy.
    expect(output.split('\n').filter((line) => files.some((f) => line.startsWith(`${f}(`)))).toEqual([]);
  }, 240_000);

  it('lints clean with the repository config, the platform/* rules included', () => {
    expect(() => workspace.run('npx', ['eslint', '--max-warnings', '0', ...written()])).not.toThrow();
  }, 120_000);

  describe('the generated e2e tests, in one Jest run against the real database', () => {
    /** Each test file's result, by its path from the workspace root. */
    const results = new Map<string, { status: string; message: string }>();

    beforeAll(() => {
      // Under .data/, which changed() skips. Jest exits non-zero when a test fails: its JSON says which.
      const output = path.join(workspace.dir, '.data', 'jest-results.json');
      fs.mkdirSync(path.dirname(output), { recursive: true });
      const printed = outputOf(() => workspace.run('npx', ['jest', ...APPS.map((app) => `apps/${app}/src/${FEATURE}/`), '--json', `--outputFile=${output}`]));
      if (!fs.existsSync(output)) throw new Error(`Jest wrote no results:\n${printed}`);
      const { testResults } = JSON.parse(fs.readFileSync(output, 'utf8')) as { testResults: { name: string; status: string; message: string }[] };
      for (const { name, status, message } of testResults) results.set(path.relative(workspace.dir, name), { status, message });
    }, 240_000);

    it.each(APPS)('%s: its generated e2e test passes', (app) => {
      const file = `apps/${app}/src/${FEATURE}/${FEATURE}.e2e-spec.ts`;
      expect({ file, ...results.get(file) }).toEqual({ file, status: 'passed', message: '' });
    });
  });

  it('refuses from the command line with a message that says why', () => {
    const refusal = (...args: string[]) => outputOf(() => workspace.run('npx', ['nx', 'g', '@platform/nx-plugin:feature', ...args]));
    expect(refusal('gateway', 'things')).toContain('gateway has no database');
    expect(refusal('auth-api', FEATURE)).toContain(`apps/auth-api/src/${FEATURE} exists already`);
    expect(workspace.changed().filter((f) => f !== CHECK_CONFIG)).toEqual(changed);
  }, 120_000);
});
