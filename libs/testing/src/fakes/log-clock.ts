// The clock the fake container engines stamp log lines with, as a real engine does: the wall clock to
// the nanosecond, not cut to the millisecond. A line written after a moment read with `new Date()`
// is stamped after it, also within the same millisecond (a log reader that compares a line with such
// a moment, a clear say, sees it on the right side).

let last = 0n;

/**
 * Now in nanoseconds since the epoch: the high-resolution wall clock, never inside or before the
 * millisecond `Date.now()` gives, and strictly after the previous stamp.
 */
export function logClockNs(): bigint {
  const precise = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  const pastMillisecond = BigInt(Date.now()) * 1_000_000n + 1n;
  let ns = precise > pastMillisecond ? precise : pastMillisecond;
  if (ns <= last) ns = last + 1n;
  last = ns;
  return ns;
}

/** RFC 3339 with nine fraction digits (`2026-11-29T05:39:50.951234567Z`), as Docker and Kubernetes write log timestamps. */
export function rfc3339Nano(ns: bigint): string {
  const seconds = ns / 1_000_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${String(ns % 1_000_000_000n).padStart(9, '0')}Z`;
}
