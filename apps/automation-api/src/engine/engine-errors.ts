import { GraphApiError } from '../graph/graph-api.error';

/** The work item has to wait (private-reply budget used up): not an attempt, not an error. */
export class DeferredError extends Error {
  constructor(readonly delayMs: number, message: string) {
    super(message);
  }
}

/** Another worker moved the run meanwhile (optimistic lock): process the item again. */
export class StaleRunError extends Error {}

/** A failure while moving a run; carries the run for the error state and the Event. */
export class RunError extends Error {
  constructor(readonly runId: string, override readonly cause: unknown) {
    super(cause instanceof GraphApiError ? cause.detail : cause instanceof Error ? cause.message : String(cause));
  }

  get retryable(): boolean {
    return isRetryable(this.cause);
  }
}

export function isRetryable(err: unknown): boolean {
  if (err instanceof RunError) return err.retryable;
  if (err instanceof GraphApiError) return err.retryable;
  return !(err instanceof DeferredError);
}

export function deferred(wait: number): DeferredError {
  return new DeferredError(wait, `private replies per hour used up or paced; deferred by ${Math.ceil(wait / 1000)} s`);
}

/** Runs `fn` for the run `runId`: any failure but the engine's own becomes a RunError of that run. */
export async function guardRun(runId: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DeferredError || err instanceof StaleRunError || err instanceof RunError) throw err;
    throw new RunError(runId, err);
  }
}
