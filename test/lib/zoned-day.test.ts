import { describe, expect, it } from 'vitest';
import { dateIn, startOfDayIn } from '../../src/lib/zoned-day.js';

describe('days in a time zone', () => {
  it.each([
    ['2026-11-21T12:00:00Z', 'UTC', '2026-11-21', '2026-11-21T00:00:00.000Z'],
    ['2026-11-21T23:30:00Z', 'Europe/Berlin', '2026-11-22', '2026-11-21T23:00:00.000Z'],
    ['2026-11-21T03:00:00Z', 'America/New_York', '2026-11-20', '2026-11-20T05:00:00.000Z'],
    // The spring change in Berlin (02:00 → 03:00 on 29 March): the day began at 23:00 UTC.
    ['2026-03-29T12:00:00Z', 'Europe/Berlin', '2026-03-29', '2026-03-28T23:00:00.000Z'],
    // The autumn change in New York (1 November): the day began at 04:00 UTC (EDT).
    ['2026-11-01T20:00:00Z', 'America/New_York', '2026-11-01', '2026-11-01T04:00:00.000Z'],
    ['2026-11-21T12:00:00Z', 'Asia/Kolkata', '2026-11-21', '2026-11-20T18:30:00.000Z'],
  ])('%s in %s is on %s, which began at %s', (at, zone, date, start) => {
    expect(dateIn(new Date(at), zone)).toBe(date);
    expect(startOfDayIn(new Date(at), zone).toISOString()).toBe(start);
  });
});
