import { logClockNs, rfc3339Nano } from './log-clock';

describe('the fake engines\' log clock', () => {
  it('stamps a line after a moment read with new Date(), also within the same millisecond', () => {
    for (let i = 0; i < 2_000; i++) {
      const moment = BigInt(new Date().getTime()) * 1_000_000n;
      expect(logClockNs()).toBeGreaterThan(moment);
    }
  });

  it('stamps strictly increasing times, close to the wall clock', () => {
    const stamps = Array.from({ length: 1_000 }, () => logClockNs());
    expect(stamps.every((ns, i) => i === 0 || ns > stamps[i - 1])).toBe(true);
    expect(Math.abs(Number(stamps[999] / 1_000_000n) - Date.now())).toBeLessThan(1_000);
  });

  it('writes RFC 3339 with nine fraction digits', () => {
    expect(rfc3339Nano(1_795_851_988_923_456_789n)).toBe('2026-11-28T07:46:28.923456789Z');
    expect(rfc3339Nano(1_795_851_988_000_000_001n)).toBe('2026-11-28T07:46:28.000000001Z');
  });
});
