import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's garbage collection on demand (full, or `{ type: 'minor' }`), also when Node was started
 * without --expose-gc: for tests that measure what a process holds rather than what it has not
 * collected yet.
 */
export function garbageCollector(): (options?: { type: 'minor' | 'major' }) => void {
  setFlagsFromString('--expose_gc');
  return runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
}
