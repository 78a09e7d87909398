import { externalTool } from './external-tool';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
/** Flags for a headless run in a container without a sandbox, GPU or background traffic. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Call at the top of a browser test's `describe`: true when Chromium is installed. Otherwise
 * `externalTool` registers what stands in for the tests (a failing test under CI, else a skipped one)
 * and this answers false (the caller returns).
 */
export function chromiumAvailable(what: string): boolean {
  return externalTool(CHROMIUM, { install: 'apt-get install -y chromium', what }) !== undefined;
}
