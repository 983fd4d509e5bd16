import { scoreCvss } from '../../intel/cvss/cvss.js';
import type { CvssMetric } from '../../intel/types.js';
import { isStale, newestDate, normaliseDataDate, STALE_AFTER_DAYS } from './freshness.js';
import type { IntelMatcher } from './matcher.js';
import type { IntelService } from './service.js';
import { type CveIntel, FEED_NAMES, type FeedName, type IntelLoad, type SyncSourceState } from './types.js';

// How intelligence looks on the wire (the API and the CLI's --json): feed loads, feed status and
// what the feeds say about one CVE.

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const day = (d: Date | string | null | undefined) =>
  d ? (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10)) : null;

export const toLoadDto = (l: IntelLoad) => ({
  Id: l.id,
  Feed: l.feed,
  Source: l.source,
  State: l.state,
  DataDate: normaliseDataDate(l.dataDate),
  DataDateAsGiven: l.dataDate,
  Added: l.added,
  Updated: l.updated,
  Unchanged: l.unchanged,
  Skipped: l.skipped,
  Warnings: l.warnings,
  Error: l.error,
  StartedAt: new Date(l.startedAt).toISOString(),
  FinishedAt: iso(l.finishedAt),
});

type FeedStatus = Awaited<ReturnType<IntelService['feedStatus']>>;

/**
 * How current a feed's data is: the newest date its completed loads stated, or for files that
 * state none, the newest record held (not for KEV: entries NVD records bring are no catalogue).
 */
function feedDataDate(feed: FeedName, status: FeedStatus): string | null {
  const stated = status.statedDates.filter((r) => r.feed === feed).map((r) => normaliseDataDate(r.dataDate));
  return newestDate([...stated, feed === 'kev' ? null : status.newestRecords?.[feed]]);
}

/** Each feed: records held, how current they are at the application's clock, last loads. */
export function toFeedItems(status: FeedStatus) {
  const byFeed = (rows: IntelLoad[], feed: string) => rows.find((r) => r.feed === feed);
  return FEED_NAMES.map((feed) => {
    const last = byFeed(status.lastLoads, feed);
    const completed = byFeed(status.lastCompleted, feed);
    const records = status.counts[feed];
    const dataDate = feedDataDate(feed, status);
    return {
      Feed: feed,
      Records: records,
      DataDate: dataDate,
      Stale: isStale(dataDate, records, status.now),
      LastLoad: last ? toLoadDto(last) : null,
      LastCompletedLoad: completed ? toLoadDto(completed) : null,
    };
  });
}

/** What the feed status says about the sync's settings. */
export interface SyncSettings {
  syncUrls: string[];
  syncHours: number | null;
  /** The official sources configured, with their addresses; empty when RAMPART_INTEL_SYNC=off. */
  sources: { source: string; url: string }[];
}

/**
 * Each official source: those configured (in the order they are synced) and any the sync read
 * before that is no longer configured, with where each stands.
 */
export function toSyncSources(states: SyncSourceState[], configured: SyncSettings['sources']) {
  const byName = new Map(states.map((s) => [s.source, s]));
  const names = [
    ...configured.map((c) => c.source),
    ...states.map((s) => s.source).filter((n) => !configured.some((c) => c.source === n)),
  ];
  return names.map((name) => {
    const s = byName.get(name);
    return {
      Source: name,
      Url: configured.find((c) => c.source === name)?.url ?? null,
      LastStartedAt: iso(s?.lastStartedAt),
      LastFinishedAt: iso(s?.lastFinishedAt),
      LastSuccessAt: iso(s?.lastSuccessAt),
      SyncedUntil: iso(s?.syncedUntil),
      Progress: s?.windowEnd
        ? {
            WindowStart: iso(s.windowStart),
            WindowEnd: new Date(s.windowEnd).toISOString(),
            NextIndex: s.nextIndex,
            TotalResults: s.totalResults,
          }
        : null,
      LastError: s?.lastError ?? null,
    };
  });
}

type SyncSourceDto = ReturnType<typeof toSyncSources>[number];

/** One line per official source, as `rampart intel status` prints them. */
export function syncSourceLines(sources: SyncSourceDto[]): string[] {
  return sources.map((s) => {
    const parts = [s.LastSuccessAt ? `last synced ${s.LastSuccessAt}` : 'never synced'];
    if (s.SyncedUntil) parts.push(`changes loaded up to ${s.SyncedUntil}`);
    if (s.Progress) {
      const what = s.Progress.WindowStart
        ? `window ${s.Progress.WindowStart} to ${s.Progress.WindowEnd}`
        : 'first full load';
      parts.push(
        `under way: ${what}, next from record ${s.Progress.NextIndex} of ${s.Progress.TotalResults ?? 'unknown'}`,
      );
    }
    if (s.LastError) parts.push(`last error: ${s.LastError}`);
    return `${s.Source.padEnd(14)} ${parts.join('; ')}`;
  });
}

/** Feed status with the sync settings (GET /intel/feeds). */
export function toFeedStatusDto(status: FeedStatus, sync: SyncSettings) {
  const items = toFeedItems(status);
  const enabled = sync.sources.length > 0;
  return {
    Items: items,
    Now: status.now.toISOString(),
    StaleAfterDays: STALE_AFTER_DAYS,
    Stale: items.some((i) => i.Stale),
    SyncEnabled: enabled,
    Sources: toSyncSources(status.sources, sync.sources),
    SyncUrls: sync.syncUrls,
    SyncHours: enabled || sync.syncUrls.length > 0 ? sync.syncHours : null,
    LastSync: status.sync?.lastStartedAt
      ? {
          StartedAt: iso(status.sync.lastStartedAt),
          FinishedAt: iso(status.sync.lastFinishedAt),
          Errors: status.sync.lastErrors.map((e) => ({ Url: e.url, Error: e.error })),
        }
      : null,
  };
}

/** A stated CVSS assessment with the library's reading of its vector, metric by metric. */
export function cvssAssessment(m: CvssMetric) {
  const scored = scoreCvss(m.vector);
  return {
    Version: m.version,
    Vector: scored.ok ? scored.vector : m.vector,
    BaseScore: scored.ok ? scored.baseScore : null,
    Severity: scored.ok ? scored.severity : null,
    Source: m.source ?? null,
    Type: m.type ?? null,
    Metrics: scored.ok
      ? scored.metrics.map((x) => ({ Key: x.key, Name: x.name, Value: x.value, Label: x.label }))
      : [],
    Error: scored.ok ? null : scored.error,
  };
}

/** Where each piece of what is known about a CVE came from, and when it was loaded. */
function cveSources(found: CveIntel) {
  const loaded = (feed: string, source: string, at: Date | string) => ({
    Feed: feed,
    Source: source,
    LoadedAt: new Date(at).toISOString(),
  });
  return [
    ...found.records.map((r) => loaded(r.feed, r.source, r.loadedAt)),
    ...(found.kev ? [loaded('kev', found.kev.source, found.kev.loadedAt)] : []),
    ...(found.epss ? [loaded('epss', found.epss.source, found.epss.loadedAt)] : []),
    ...found.osv.map((a) => loaded('osv', a.source, a.loadedAt)),
  ];
}

/** What the public feeds say about one CVE (GET /intel/cves/{CveId}). */
export function toCveIntelDto(
  cveId: string,
  found: CveIntel,
  matcher: Pick<IntelMatcher, 'affectedProducts'>,
) {
  const main = found.records[0];
  return {
    Cve: cveId,
    Status: main?.status ?? null,
    Rejected: main?.rejected ?? false,
    Description: main?.description ?? null,
    PublishedAt: iso(main?.publishedAt),
    ModifiedAt: iso(main?.modifiedAt),
    Cvss: found.records.flatMap((r) => (r.cvss as CvssMetric[]).map(cvssAssessment)),
    Cwe: [...new Set(found.records.flatMap((r) => r.cweIds))],
    References: [...new Set(found.records.flatMap((r) => r.referenceUrls))],
    Epss: found.epss
      ? {
          Score: found.epss.score,
          Percentile: found.epss.percentile,
          ScoreDate: day(found.epss.scoreDate),
        }
      : null,
    Kev: found.kev
      ? {
          Name: found.kev.name,
          Vendor: found.kev.vendor,
          Product: found.kev.product,
          DateAdded: day(found.kev.dateAdded) ?? '',
          DueDate: day(found.kev.dueDate),
          RequiredAction: found.kev.requiredAction,
          KnownRansomwareUse: found.kev.knownRansomware,
        }
      : null,
    Advisories: found.osv.map((a) => ({ Id: a.id, Summary: a.summary, Packages: a.packages })),
    AffectedProducts: matcher.affectedProducts(main?.configurations ?? []),
    Sources: cveSources(found),
  };
}
