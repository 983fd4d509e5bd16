/** The calendar date (YYYY-MM-DD) of `at` in `timeZone`. */
export function dateIn(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** How far `timeZone` is ahead of UTC at `at`, in milliseconds. */
function offsetAt(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const local = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return local - Math.floor(at.getTime() / 1000) * 1000;
}

/** The instant the day of `at` began in `timeZone` (local midnight; DST-safe to the hour). */
export function startOfDayIn(at: Date, timeZone: string): Date {
  const [y, m, d] = dateIn(at, timeZone).split('-').map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(y, m - 1, d);
  // The offset at the guess, then again at the corrected instant (a DST change near midnight).
  let guess = utcMidnight - offsetAt(new Date(utcMidnight), timeZone);
  guess = utcMidnight - offsetAt(new Date(guess), timeZone);
  return new Date(guess);
}
