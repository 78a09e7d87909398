/** Opening hours per weekday in the account's time zone; a missing or null day is closed. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface DayHours {
  /** `HH:MM`, 24-hour clock, local time. */
  open: string;
  /** `HH:MM` after `open`; `24:00` for the end of the day. */
  close: string;
}

export type BusinessHours = Partial<Record<Weekday, DayHours | null>>;

const minutes = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
};

/** Whether `timeZone` is an IANA time zone this runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The problems of a set of hours (a day whose close is not after its open), as `[weekday, message]`. */
export function hoursProblems(hours: BusinessHours): Array<[Weekday, string]> {
  const problems: Array<[Weekday, string]> = [];
  for (const day of WEEKDAYS) {
    const h = hours[day];
    if (h && minutes(h.close) <= minutes(h.open)) problems.push([day, `close (${h.close}) must be after open (${h.open})`]);
  }
  return problems;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The weekday and minute of the day at `at` on the wall clock of `timeZone` (daylight-saving time applied). */
export function localTime(at: Date, timeZone: string): { weekday: Weekday; minute: number } {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return { weekday: parts.weekday.toLowerCase() as Weekday, minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

/**
 * Whether `at` falls within the account's business hours, on the wall clock of its time zone:
 * open ≤ local time < close on that weekday. No hours set (null) means always open.
 */
export function withinBusinessHours(hours: BusinessHours | null, timeZone: string, at: Date): boolean {
  if (!hours) return true;
  const { weekday, minute } = localTime(at, timeZone);
  const day = hours[weekday];
  return !!day && minute >= minutes(day.open) && minute < minutes(day.close);
}
