import { hoursProblems, isTimeZone, localTime, withinBusinessHours, type BusinessHours } from './business-hours';

const weekdays9to17: BusinessHours = {
  monday: { open: '09:00', close: '17:00' },
  tuesday: { open: '09:00', close: '17:00' },
  wednesday: { open: '09:00', close: '17:00' },
  thursday: { open: '09:00', close: '17:00' },
  friday: { open: '09:00', close: '17:00' },
  saturday: { open: '10:00', close: '24:00' },
  sunday: null,
};

describe('business hours', () => {
  // Berlin leaves summer time on Sunday 2026-10-25 (03:00 CEST → 02:00 CET) and New York on
  // Sunday 2026-11-01; the same UTC instant is an hour apart in local time on either side.
  it.each([
    ['Friday 08:30 UTC is 10:30 in Berlin (CEST, UTC+2): open', '2026-10-23T08:30:00Z', 'Europe/Berlin', true],
    ['Friday 15:30 UTC is 17:30 in Berlin (CEST): closed', '2026-10-23T15:30:00Z', 'Europe/Berlin', false],
    ['Monday 07:30 UTC after the change is 08:30 in Berlin (CET, UTC+1): closed', '2026-10-26T07:30:00Z', 'Europe/Berlin', false],
    ['Monday 08:30 UTC after the change is 09:30 in Berlin (CET): open', '2026-10-26T08:30:00Z', 'Europe/Berlin', true],
    ['Monday 15:30 UTC after the change is 16:30 in Berlin (CET): open (was closed a week before)', '2026-10-26T15:30:00Z', 'Europe/Berlin', true],
    ['Monday 15:30 UTC before the change is 17:30 in Berlin (CEST): closed', '2026-10-19T15:30:00Z', 'Europe/Berlin', false],
    ['Sunday during the repeated hour: closed all day', '2026-10-25T00:30:00Z', 'Europe/Berlin', false],
    ['Saturday 23:30 in Berlin (CEST) until 24:00: open', '2026-10-24T21:30:00Z', 'Europe/Berlin', true],
    ['New York Friday 12:30 UTC is 08:30 EDT: closed', '2026-10-30T12:30:00Z', 'America/New_York', false],
    ['New York Monday 13:30 UTC after its change is 08:30 EST: closed', '2026-11-02T13:30:00Z', 'America/New_York', false],
    ['New York Monday 14:30 UTC is 09:30 EST: open', '2026-11-02T14:30:00Z', 'America/New_York', true],
    ['New York Monday 21:30 UTC is 16:30 EST: open', '2026-11-02T21:30:00Z', 'America/New_York', true],
    ['UTC Monday 17:00 exactly: closed (close is exclusive)', '2026-10-26T17:00:00Z', 'UTC', false],
    ['UTC Monday 09:00 exactly: open', '2026-10-26T09:00:00Z', 'UTC', true],
  ])('%s', (_name, at, timeZone, expected) => {
    expect(withinBusinessHours(weekdays9to17, timeZone, new Date(at))).toBe(expected);
  });

  it('is always open without hours, and never on a day without hours', () => {
    expect(withinBusinessHours(null, 'Europe/Berlin', new Date('2026-10-25T03:00:00Z'))).toBe(true);
    expect(withinBusinessHours({}, 'Europe/Berlin', new Date('2026-10-26T10:00:00Z'))).toBe(false);
  });

  it('reads the wall clock across the change', () => {
    expect(localTime(new Date('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toEqual({ weekday: 'sunday', minute: 2 * 60 + 30 });
    expect(localTime(new Date('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toEqual({ weekday: 'sunday', minute: 2 * 60 + 30 });
  });

  it('checks time zones and hours', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(hoursProblems({ monday: { open: '10:00', close: '09:00' }, tuesday: { open: '00:00', close: '24:00' } })).toEqual([['monday', 'close (09:00) must be after open (10:00)']]);
  });
});
