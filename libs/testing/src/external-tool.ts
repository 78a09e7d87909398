import fs from 'node:fs';
import path from 'node:path';

/** CI set (not `false`) or REQUIRE_SERVICES=1: a missing outside tool fails the run instead of skipping. */
const required = (): boolean => (Boolean(process.env.CI) && process.env.CI !== 'false') || process.env.REQUIRE_SERVICES === '1';

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An absolute path as it is, a bare name looked up on PATH; undefined when not executable. */
export function locate(program: string): string | undefined {
  if (path.isAbsolute(program)) return executable(program) ? program : undefined;
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, program))
    .find(executable);
}

/**
 * Call where tests are registered (top of a file or a `describe`) for a test that drives a real
 * outside program (Chromium, Dovecot, kubectl, docker-compose): answers the first of `candidates`
 * (absolute paths, or names on PATH) that is executable. When none is, it registers what stands in
 * for the tests and answers undefined (the caller registers nothing else): under CI or
 * REQUIRE_SERVICES=1 a failing test that says what to install; otherwise a skipped test and one line
 * on stderr, so that a newcomer's `npm test` runs without the program.
 */
export function externalTool(candidates: string | string[], opts: { install: string; what: string }): string | undefined {
  const list = Array.isArray(candidates) ? candidates : [candidates];
  for (const candidate of list) {
    const found = locate(candidate);
    if (found) return found;
  }
  const name = list.join(' or ');
  if (required()) {
    it(`needs ${name}`, () => {
      throw new Error(`${name} not found, and CI (or REQUIRE_SERVICES=1) requires it for ${opts.what}: ${opts.install}`);
    });
  } else {
    process.stderr.write(`[testing] ${name} not found: ${opts.what} skipped (${opts.install})\n`);
    // Only outside CI (the branch above fails there): the skip is visible in Jest's summary.
    it.skip(`needs ${name}`, () => undefined);
  }
  return undefined;
}
