// Apps import libs; tools/ imports apps and libs, never the reverse: no file under apps/ or libs/
// imports anything under tools/ (the bench harness an app's bench uses is @platform/bench, the
// registry the gateway reads is @platform/registry). Tests are scanned too: an app's test that
// reached into tools/ would tie the app to the workspace's tooling just the same.
import path from 'node:path';
import { importsOf, resolveInWorkspace, root, sourceFiles } from './source-imports';

/**
 * Not imports of a project's code: each project's `jest.config.cjs` is the test runner's
 * configuration and names the shared preset (tools/jest/preset.cjs), as every project's layout does
 * (docs/lib-contracts.md).
 */
const isRunnerConfig = (rel: string): boolean => /^(apps|libs)\/[^/]+\/jest\.config\.cjs$/.test(rel);

/**
 * Known arrows into tools/ that are still to be moved, each with what removes it. Keep this list
 * short: a new entry needs a reason here, and an entry whose import is gone fails below.
 */
const PENDING: Record<string, string> = {};

const toolsDir = path.join(root, 'tools');

/** Every import under apps/ and libs/ that resolves into tools/, as `from -> to` (workspace paths). */
function arrowsIntoTools(): string[] {
  return ['apps', 'libs'].flatMap((dir) =>
    sourceFiles(path.join(root, dir)).flatMap((file) => {
      const rel = path.relative(root, file);
      return importsOf(file).flatMap(({ specifier }) => {
        const target = resolveInWorkspace(file, specifier);
        if (!target || !`${target}${path.sep}`.startsWith(`${toolsDir}${path.sep}`)) return [];
        return [`${rel} -> ${path.relative(root, target)}`];
      });
    }),
  );
}

describe('the direction of imports', () => {
  const arrows = arrowsIntoTools();

  it('has no file under apps/ or libs/ importing from tools/', () => {
    // Fix: move what is shared into a lib (libs/<name>, aliased @platform/<name>) and import it from both sides.
    expect(arrows.filter((arrow) => !(arrow in PENDING) && !isRunnerConfig(arrow.split(' -> ')[0]))).toEqual([]);
  });

  it('sees the imports it exempts (the scan reads require() of CommonJS files too)', () => {
    expect(arrows).toContain('libs/bench/jest.config.cjs -> tools/jest/preset.cjs');
  });

  it('keeps no stale entry among the pending ones', () => {
    expect(Object.keys(PENDING).filter((arrow) => !arrows.includes(arrow))).toEqual([]);
  });
});
