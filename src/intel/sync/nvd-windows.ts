/**
 * The NVD CVE API 2.0 asks incremental readers for `lastModStartDate`/`lastModEndDate` windows of
 * at most 120 days, read page by page with `startIndex`/`resultsPerPage` (at most 2,000).
 */

export const MAX_WINDOW_DAYS = 120;
export const MAX_RESULTS_PER_PAGE = 2000;
const DAY_MS = 86_400_000;

export interface NvdWindow {
  start: Date;
  end: Date;
}

/**
 * The next window after `syncedUntil`, ending at `now` at the latest; undefined when there is
 * nothing left to ask (syncedUntil is now or later).
 */
export function nextWindow(syncedUntil: Date, now: Date): NvdWindow | undefined {
  if (syncedUntil.getTime() >= now.getTime()) return undefined;
  const end = Math.min(syncedUntil.getTime() + MAX_WINDOW_DAYS * DAY_MS, now.getTime());
  return { start: syncedUntil, end: new Date(end) };
}

/** NVD's date form: ISO 8601 with milliseconds and an explicit offset. */
function nvdDate(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/**
 * One page's address. Without a window it is a page of the whole catalogue (the first full load,
 * which NVD recommends over windows for a new copy).
 */
export function nvdPageUrl(
  base: string,
  page: { window?: NvdWindow | undefined; startIndex: number; resultsPerPage: number },
): string {
  const url = new URL(base);
  if (page.window) {
    url.searchParams.set('lastModStartDate', nvdDate(page.window.start));
    url.searchParams.set('lastModEndDate', nvdDate(page.window.end));
  }
  url.searchParams.set('startIndex', String(page.startIndex));
  url.searchParams.set('resultsPerPage', String(page.resultsPerPage));
  return url.toString();
}
