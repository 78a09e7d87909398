import { compareTimestamps, LineSplitter, splitLines, toLine } from './provider';

describe('log lines', () => {
  it('takes the leading RFC 3339 time of a timestamped line as its timestamp', () => {
    expect(toLine('2026-01-01T00:00:00.123456789Z ready on :3009', 'stdout', true)).toEqual({ stream: 'stdout', text: 'ready on :3009', timestamp: '2026-01-01T00:00:00.123456789Z' });
    expect(toLine('2026-01-01T00:00:00+01:00 x', 'stderr', true)).toEqual({ stream: 'stderr', text: 'x', timestamp: '2026-01-01T00:00:00+01:00' });
    expect(toLine('no time here', 'stdout', true)).toEqual({ stream: 'stdout', text: 'no time here' });
    expect(toLine('2026-01-01T00:00:00Z kept as text', 'stdout', false)).toEqual({ stream: 'stdout', text: '2026-01-01T00:00:00Z kept as text' });
    expect(splitLines('2026-01-01T00:00:01Z a\n2026-01-01T00:00:02Z b\n', 'stdout', true).map((l) => l.timestamp)).toEqual(['2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z']);
  });

  it('cuts chunks into whole lines, a line split across chunks included', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.write('one\ntw');
    s.write(Buffer.from('o\r\nthr'));
    expect(lines).toEqual(['one', 'two']);
    s.write('ee');
    s.end();
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('orders timestamps to the nanosecond', () => {
    expect(compareTimestamps('2026-01-01T00:00:00.000000001Z', '2026-01-01T00:00:00.000000002Z')).toBeLessThan(0);
    expect(compareTimestamps('2026-01-01T00:00:01Z', '2026-01-01T00:00:00.999999999Z')).toBeGreaterThan(0);
    expect(compareTimestamps('2026-01-01T00:00:00.5Z', '2026-01-01T00:00:00.500000000Z')).toBe(0);
  });
});
