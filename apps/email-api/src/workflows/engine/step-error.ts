/**
 * A step that did not do its work. `permanent`: trying again cannot help (an address the webhook
 * may never reach, a template that is gone): the execution FAILS at once; otherwise the step is
 * retried with backoff (execution.ts). `output` is stored on the step run (a webhook's answer).
 */
export class StepError extends Error {
  constructor(
    message: string,
    readonly permanent = false,
    readonly output?: unknown,
  ) {
    super(message);
  }
}
