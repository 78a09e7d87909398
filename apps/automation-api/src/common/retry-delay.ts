/** Delay before attempt `attempts + 1` of background work: AUTOMATION_RETRY_BASE_MS doubling per attempt, at most an hour. */
export function retryDelayMs(baseMs: number, attempts: number): number {
  return Math.min(baseMs * 2 ** (attempts - 1), 3_600_000);
}
