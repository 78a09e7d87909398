import type { ContainerProvider, WorkloadStatus } from '../provider';

/** Polls a workload's status until `done` holds (the fakes move on their own timers; no test waits on a clock). */
export async function until(provider: ContainerProvider, target: string, done: (s: WorkloadStatus) => boolean): Promise<WorkloadStatus> {
  for (;;) {
    const s = await provider.status(target);
    if (done(s)) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** The error a function throws (fails when it returns). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
