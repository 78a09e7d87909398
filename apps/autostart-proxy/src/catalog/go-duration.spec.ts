import { formatGoDuration, parseGoDuration } from './go-duration';

describe('Go durations', () => {
  it.each([
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['2h45m10s', 9_910_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['.5s', 500],
    ['1500us', 1.5],
    ['0', 0],
    ['10s', 10_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([[''], ['5'], ['-5m'], ['+5m'], ['5 m'], ['5min'], ['m'], ['1d'], ['5m '], ['x5m'], [5], [undefined], [['5m']], ['9'.repeat(65) + 's']])(
    'refuses %p',
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );

  it.each([
    [300_000, '5m0s'],
    [5_400_000, '1h30m0s'],
    [1_500, '1.5s'],
    [250, '250ms'],
    [0, '0s'],
    [60_000, '1m0s'],
  ])('%d ms renders as %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
