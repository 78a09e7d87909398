import { compare, isTimeZone } from './analytics.service';

describe('analytics', () => {
  it('compares a figure with the previous period in percent', () => {
    expect(compare(1200, 600)).toEqual({ value: 1200, previous: 600, change: 100 });
    expect(compare(2, 3)).toEqual({ value: 2, previous: 3, change: -33.33 });
    expect(compare(5, 0)).toEqual({ value: 5, previous: 0, change: null });
    expect(compare(null, 10)).toEqual({ value: null, previous: 10, change: null });
    expect(compare(7, null)).toEqual({ value: 7, previous: null, change: null });
  });

  it('knows IANA time zones', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) expect(isTimeZone(tz)).toBe(true);
    for (const tz of ['Mars/Olympus', '', 'Europe/Berlin; DROP', '../etc']) expect(isTimeZone(tz)).toBe(false);
  });
});
