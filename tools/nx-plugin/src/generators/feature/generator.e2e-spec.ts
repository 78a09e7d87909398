// The feature generator end to end, in a scratch copy of the workspace: `npx nx g
// @platform/nx-plugin:feature <app> shipping-notes` into three apps of different styles (auth-api:
// entities and `{detail}` errors; logistics-hooks: SQL repositories and the envelope; autostart-proxy:
// SQL and `{error}`), then typecheck and lint what it wrote and run each generated e2e test against
// the real database. The real tree is never touched.
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

  it.each(APPS)('%s: the generated e2e test passes against the real database', (app) => {
    // Jest fails when the test fails or is not found; the error carries its output.
    expect(() => workspace.run('npx', ['jest', '-c', `apps/${app}/jest.config.cjs`, `apps/${app}/src/${FEATURE}`])).not.toThrow();
  }, 180_000);

  it('refuses from the command line with a message that says why', () => {
    const refusal = (...args: string[]) => outputOf(() => workspace.run('npx', ['nx', 'g', '@platform/nx-plugin:feature', ...args]));
    expect(refusal('gateway', 'things')).toContain('gateway has no database');
    expect(refusal('auth-api', FEATURE)).toContain(`apps/auth-api/src/${FEATURE} exists already`);
    expect(workspace.changed().filter((f) => f !== CHECK_CONFIG)).toEqual(changed);
  }, 120_000);
});
