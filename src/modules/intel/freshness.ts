/**
 * How current the vulnerability intelligence is. Feed files state their date each in their own
 * form (KEV `2025.08.25`, EPSS `2026-08-16T00:00:00+0000`, an NVD page `2026-10-08T22:17:07.363`
 * without a zone); the API answers ISO 8601 UTC so that clients can compare, and says which feeds
 * are older than STALE_AFTER_DAYS at the application's clock.
 */

/** Intelligence older than this is flagged: KEV gains entries every week, EPSS changes daily. */
export const STALE_AFTER_DAYS = 30;

const DAY_MS = 86_400_000;

/** Feed dates read as UTC: NVD states its timestamps in UTC without saying so. */
const FEED_DATE =
  /^(\d{4})[-.](\d{2})[-.](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A feed's stated date as ISO 8601 UTC, or null when it is no date (an impossible day, or text
 * that is not a date: never guessed).
 */
export function normaliseDataDate(raw: string | null | undefined): string | null {
  const m = FEED_DATE.exec(raw?.trim() ?? '');
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s), ms);
  const date = new Date(utc);
  // Date.UTC rolls 2025-02-30 over into March; such a day is no date.
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  )
    return null;
  return new Date(utc - zoneOffsetMs(zone)).toISOString();
}

function zoneOffsetMs(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
}

/** The newest of several dates (ISO strings or Dates); null when none is known. */
export function newestDate(dates: readonly (string | Date | null | undefined)[]): string | null {
  let newest: number | null = null;
  for (const value of dates) {
    if (!value) continue;
    const time = new Date(value).getTime();
    if (!Number.isNaN(time) && (newest === null || time > newest)) newest = time;
  }
  return newest === null ? null : new Date(newest).toISOString();
}

/** Whole days from `dataDate` to `now` (0 for data dated in the future). */
export function ageInDays(dataDate: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - new Date(dataDate).getTime()) / DAY_MS));
}

/** A feed that holds records dated more than STALE_AFTER_DAYS before `now`. */
export function isStale(dataDate: string | null, records: number, now: Date): boolean {
  return records > 0 && dataDate !== null && ageInDays(dataDate, now) > STALE_AFTER_DAYS;
}

/** What to do about dated intelligence, in the words of docs/intelligence.md. */
export const REFRESH_HINT =
  'Let the scheduled sync reach the official sources or their mirrors (RAMPART_INTEL_SYNC, RAMPART_INTEL_NVD_URL and the like), load current feed files with `rampart intel load PATH…` or POST /intel/loads, or set RAMPART_INTEL_SYNC_URLS to download files of your own on a schedule.';
