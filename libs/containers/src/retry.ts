/** Retries of one API call on a transient failure. */
export interface RetryOptions {
  /** Further attempts after the first on a 429, 502, 503 or 504 answer or a refused/reset connection (never after a timeout). Default 2. */
  retries?: number;
  /** Delay before the first retry, doubled for each next one (±20 % jitter). Default 200 ms. */
  retryDelayMs?: number;
  /** Cap of that delay. Default 2000 ms. */
  maxRetryDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { retries: 2, retryDelayMs: 200, maxRetryDelayMs: 2000 };

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED']);

/** The options with defaults; a bad value throws a RangeError naming it. */
export function retryPolicy(opts: RetryOptions = {}): Required<RetryOptions> {
  const policy: Required<RetryOptions> = {
    retries: opts.retries ?? DEFAULT_RETRY.retries,
    retryDelayMs: opts.retryDelayMs ?? DEFAULT_RETRY.retryDelayMs,
    maxRetryDelayMs: opts.maxRetryDelayMs ?? DEFAULT_RETRY.maxRetryDelayMs,
  };
  for (const [key, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${key} must be a non-negative integer (got ${value})`);
  }
  return policy;
}

/** Answers that say "not now" rather than "no": overloaded, or a proxy in front of the server failed. */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

/**
 * A failure worth another attempt: the server answered 429, 502, 503 or 504, or the connection was
 * refused or reset before an answer. A timeout is not (a server that does not answer would make
 * every retry wait as long again), and neither is any other status: a 4xx says the request is wrong,
 * and Docker answers 500 for lasting failures too ("OCI runtime create failed").
 */
export function isTransientFailure(err: unknown, status: number | undefined): boolean {
  if (status !== undefined) return TRANSIENT_STATUSES.has(status);
  const e = err as { name?: string; code?: string; errno?: string; message?: string; cause?: { code?: string } } | undefined;
  if (!e || e.name === 'TimeoutError' || e.name === 'AbortError') return false;
  const code = e.code ?? e.errno ?? e.cause?.code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || /socket hang up/i.test(e.message ?? '');
}

/**
 * Runs `attempt` until it succeeds, fails for good (`transient` false) or the retries are used up,
 * waiting with exponential backoff in between. The error thrown is the last one, with `attempts`.
 */
export async function withRetries<T>(
  policy: Required<RetryOptions>,
  attempt: () => Promise<T>,
  transient: (err: unknown) => boolean,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n > policy.retries || !transient(err)) {
        if (err && typeof err === 'object') (err as { attempts?: number }).attempts = n;
        throw err;
      }
      const base = Math.min(policy.maxRetryDelayMs, policy.retryDelayMs * 2 ** (n - 1));
      await new Promise((r) => setTimeout(r, Math.round(base * (0.8 + Math.random() * 0.4))));
    }
  }
}

/** ` (after 3 attempts)` when the call was tried more than once. */
export function attemptsNote(err: unknown): string {
  const n = (err as { attempts?: number } | undefined)?.attempts ?? 1;
  return n > 1 ? ` (after ${n} attempts)` : '';
}
