// Go's duration syntax (time.ParseDuration), which Sablier's API and labels use: a sequence of
// decimal numbers with a unit each, "300ms", "1.5h", "2h45m", "5m". Plain functions, no I/O.

const UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Milliseconds of a Go duration ("5m" → 300000), or undefined when it is not one. Signs are refused (a wait is never negative). */
export function parseGoDuration(text: unknown): number | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64) return undefined;
  if (text === '0') return 0;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== at) return undefined;
    total += Number(m[1]) * UNITS[m[2]];
  }
  return Number.isFinite(total) ? total : undefined;
}

/** Go's own rendering of a duration (time.Duration.String()) for whole milliseconds: 300000 → "5m0s", 1500 → "1.5s". */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}
