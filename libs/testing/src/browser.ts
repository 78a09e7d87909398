import fs from 'node:fs';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
/** Flags for a headless run in a container without a sandbox, GPU or background traffic. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Call at the top of a browser test's `describe`: true when Chromium is installed. Otherwise it
 * registers what stands in for the tests and returns false (the caller returns): a skipped test and
 * one line on stderr, or, under CI=true or REQUIRE_SERVICES=1, a failing test that says what to install.
 */
export function chromiumAvailable(what: string): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true' || process.env.REQUIRE_SERVICES === '1') {
    it('needs Chromium', () => {
      throw new Error(`${CHROMIUM} not found, and CI=true or REQUIRE_SERVICES=1 requires it: apt-get install -y chromium`);
    });
  } else {
    process.stderr.write(`[browser] ${CHROMIUM} not found: ${what} skipped (apt-get install chromium to run it)\n`);
    // Only outside CI (the branch above fails there): a newcomer's `npm test` runs without a browser installed.
    it.skip(`needs ${CHROMIUM}`, () => undefined);
  }
  return false;
}
