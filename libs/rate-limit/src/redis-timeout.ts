/**
 * `work`, or a rejection when it has not settled within `ms`: a hung or half-open connection fails
 * the call instead of holding it (ioredis keeps a command queued until the connection is declared
 * lost, or forever). A late rejection of `work` is expected and already handled.
 */
export async function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
