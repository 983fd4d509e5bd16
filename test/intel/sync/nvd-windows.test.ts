import { describe, expect, it } from 'vitest';
import { MAX_WINDOW_DAYS, nextWindow, nvdPageUrl } from '../../../src/intel/sync/nvd-windows.js';

describe('NVD lastMod windows', () => {
  const at = (iso: string) => new Date(iso);

  it('never spans more than 120 days, and ends at now at the latest', () => {
    expect(nextWindow(at('2026-01-01T00:00:00Z'), at('2026-11-21T12:00:00Z'))).toEqual({
      start: at('2026-01-01T00:00:00Z'),
      end: at('2026-05-01T00:00:00Z'),
    });
    expect(MAX_WINDOW_DAYS).toBe(120);
    expect(nextWindow(at('2026-11-01T00:00:00Z'), at('2026-11-21T12:00:00Z'))).toEqual({
      start: at('2026-11-01T00:00:00Z'),
      end: at('2026-11-21T12:00:00Z'),
    });
  });

  it('has nothing to ask once synced up to now (or past it)', () => {
    expect(nextWindow(at('2026-11-21T12:00:00Z'), at('2026-11-21T12:00:00Z'))).toBeUndefined();
    expect(nextWindow(at('2026-11-22T00:00:00Z'), at('2026-11-21T12:00:00Z'))).toBeUndefined();
  });

  it("writes NVD's dates with an explicit offset, and no window for a full load", () => {
    const window = { start: at('2026-01-01T00:00:00Z'), end: at('2026-05-01T00:00:00Z') };
    const url = new URL(
      nvdPageUrl('http://127.0.0.1:9/rest/json/cves/2.0', { window, startIndex: 4000, resultsPerPage: 2000 }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      lastModStartDate: '2026-01-01T00:00:00.000+00:00',
      lastModEndDate: '2026-05-01T00:00:00.000+00:00',
      startIndex: '4000',
      resultsPerPage: '2000',
    });
    // The "+" is escaped, as a query needs it to be.
    expect(url.search).toContain('lastModStartDate=2026-01-01T00%3A00%3A00.000%2B00%3A00');
    const full = new URL(nvdPageUrl('http://127.0.0.1:9/nvd', { startIndex: 0, resultsPerPage: 2000 }));
    expect([...full.searchParams.keys()]).toEqual(['startIndex', 'resultsPerPage']);
  });
});
