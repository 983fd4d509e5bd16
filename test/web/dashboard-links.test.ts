import { describe, expect, it } from 'vitest';
import { daySpan, findingsLink, OPEN, zonedMidnight } from '../../web/src/features/overview/links.js';

describe('the dashboard links to the findings behind a figure', () => {
  it('puts the figure’s filters and the dashboard’s scope in the findings list’s address', () => {
    expect(findingsLink({}, { State: OPEN, Severity: 'High' })).toBe(
      '/findings?State=Open&State=Reopened&Severity=High',
    );
    expect(findingsLink({ Tag: 'prod & dmz' }, { Kev: 'true', Severity: undefined })).toBe(
      '/findings?Kev=true&Tag=prod+%26+dmz',
    );
    expect(findingsLink({ ScanGroupId: 'g-1' }, { State: 'Fixed' })).toBe(
      '/findings?State=Fixed&ScanGroupId=g-1',
    );
    // Any state is "State=", which the findings page tells from its default (open ones).
    expect(findingsLink({}, { State: [], FirstSeenAfter: 'x' })).toBe('/findings?State=&FirstSeenAfter=x');
  });

  it('finds midnight of a day in the organisation’s time zone', () => {
    expect(zonedMidnight('2026-11-23', 'UTC').toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(zonedMidnight('2026-11-23', 'Europe/Helsinki').toISOString()).toBe('2026-11-22T22:00:00.000Z');
    expect(zonedMidnight('2026-07-06', 'Europe/Helsinki').toISOString()).toBe('2026-07-05T21:00:00.000Z');
    expect(zonedMidnight('2026-11-23', 'America/New_York').toISOString()).toBe('2026-11-23T05:00:00.000Z');
    expect(zonedMidnight('2026-11-23', 'Not/A_Zone').toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it('gives a week as strict filters that include its first midnight', () => {
    expect(daySpan('2026-11-23', 7, 'Europe/Helsinki')).toEqual({
      after: '2026-11-22T21:59:59.999Z',
      before: '2026-11-29T22:00:00.000Z',
    });
    // The week summer time ends in: 7 days and one hour.
    expect(daySpan('2026-10-19', 7, 'Europe/Helsinki')).toEqual({
      after: '2026-10-18T20:59:59.999Z',
      before: '2026-10-25T22:00:00.000Z',
    });
  });
});
