import type { FindingState, HistoryScopeKind } from '../../db/schema.js';
import type { JobKind } from '../../jobs/catalogue.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import type { Clock } from '../../lib/clock.js';
import { invalid } from '../../problems/app-error.js';
import type { ServiceContext } from '../context.js';
import type { TimeZoneChanged } from '../settings/service.js';
import { addDays, daysBetween, isDay, laterDay, localDay } from './days.js';
import type { HistoryBuildRow, HistoryRepository, HistoryRow } from './repository.js';
import type { HistoryBuild, HistoryScope, MttrFigure, Trend, TrendDay } from './types.js';

/**
 * The version of the computation. A build of another version (an upgrade that counts differently)
 * is rebuilt from the findings' history at the next start.
 */
export const HISTORY_VERSION = 1;
/** MTTR of a day: the fixes of the 90 days up to and including it. */
export const MTTR_WINDOW_DAYS = 90;
/** A rebuild goes back at most this many days; a trend spans at most this many. */
export const MAX_HISTORY_DAYS = 400;
/** Trends cover the last 90 days unless asked otherwise. */
export const DEFAULT_TREND_DAYS = 90;
/** A rebuild computes this many days per statement, and records its progress after each. */
const REBUILD_CHUNK_DAYS = 31;
/** The daily snapshot's schedule: 00:10 in the organisation's time zone. */
export const HISTORY_SCHEDULE_KEY = 'history-snapshot';
/** The kind of job of both the daily snapshot and the rebuild. */
export const HISTORY_SNAPSHOT_JOB = 'history-snapshot' satisfies JobKind;
const DAILY_AT = '10 0 * * *';

// What this module asks of the modules it works with, by the little it uses of each.
export interface HistoryDependencies {
  timeZoneOf(organizationId: string): Promise<string>;
  organizationIds(): Promise<string[]>;
  /** Throws the not-found problem when the organisation has no such scan group. */
  checkScanGroup(ctx: ServiceContext, id: string): Promise<void>;
}

const scopeKey = (scope: HistoryScope): [HistoryScopeKind, string] =>
  scope.kind === 'Tag'
    ? ['Tag', scope.tag]
    : scope.kind === 'ScanGroup'
      ? ['ScanGroup', scope.scanGroupId]
      : ['Organization', ''];

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));
const rounded = (v: number) => Math.round(v * 100) / 100;

function mttrOf(
  mean: string | number | null,
  median: string | number | null,
  count: number,
): MttrFigure | null {
  if (!count || mean === null || median === null) return null;
  return { meanDays: rounded(Number(mean)), medianDays: rounded(Number(median)), count };
}

function toTrendDay(r: HistoryRow): TrendDay {
  const byState: Record<FindingState, number> = {
    Open: r.state_open,
    Reopened: r.state_reopened,
    RiskAccepted: r.state_risk_accepted,
    FalsePositive: r.state_false_positive,
    Fixed: r.state_fixed,
  };
  return {
    date: r.day,
    open: {
      Critical: r.open_critical,
      High: r.open_high,
      Medium: r.open_medium,
      Low: r.open_low,
      Info: r.open_info,
    },
    byState,
    new: r.new_count,
    fixed: r.fixed_count,
    reopened: r.reopened_count,
    pastSla: r.past_sla,
    dueSoon: r.due_soon,
    riskExposure: rounded(num(r.risk_exposure) ?? 0),
    kevOpen: r.kev_open,
    assetsSeen: r.assets_seen,
    assetsScanned: r.assets_scanned,
    mttr: {
      Critical: mttrOf(r.mttr_critical_mean, r.mttr_critical_median, r.mttr_critical_count),
      High: mttrOf(r.mttr_high_mean, r.mttr_high_median, r.mttr_high_count),
      Medium: mttrOf(r.mttr_medium_mean, r.mttr_medium_median, r.mttr_medium_count),
      Low: mttrOf(r.mttr_low_mean, r.mttr_low_median, r.mttr_low_count),
      Info: mttrOf(r.mttr_info_mean, r.mttr_info_median, r.mttr_info_count),
    },
  };
}

const toBuild = (b: HistoryBuildRow): HistoryBuild => ({
  state: b.state,
  daysDone: b.days_done,
  daysTotal: b.days_total,
  firstDay: b.first_day,
  lastDay: b.last_day,
});

/**
 * History that makes trends possible: a snapshot per organisation, asset tag and scan group for
 * every calendar day of the organisation's time zone (docs/history.md says what each figure
 * counts). A schedule per organisation computes the day that ended at 00:10 there; on first start
 * and after an upgrade the whole history is rebuilt from the findings' own history, as a job.
 */
export class HistoryService {
  constructor(
    private readonly repo: HistoryRepository,
    private readonly deps: HistoryDependencies,
    private readonly jobs: JobQueue,
    private readonly scheduler: Scheduler,
    private readonly clock: Clock,
    timeZoneChanged: TimeZoneChanged,
  ) {
    timeZoneChanged.subscribe(async (organizationId, timeZone) => {
      await this.schedule(organizationId, timeZone);
    });
  }

  /** A scope's days from..to (defaults: the last 90 days up to today in the organisation's time zone). */
  async trend(
    ctx: ServiceContext,
    scope: HistoryScope,
    range: { from?: string; to?: string },
  ): Promise<Trend> {
    if (scope.kind === 'ScanGroup') await this.deps.checkScanGroup(ctx, scope.scanGroupId);
    for (const [field, day] of [
      ['from', range.from],
      ['to', range.to],
    ] as const)
      if (day !== undefined && !isDay(day))
        throw invalid(field, `'${day}' is not a calendar day (YYYY-MM-DD).`);
    const timeZone = await this.deps.timeZoneOf(ctx.organizationId);
    const to = range.to ?? localDay(this.clock(), timeZone);
    const from = range.from ?? addDays(to, -(DEFAULT_TREND_DAYS - 1));
    if (from > to) throw invalid('to', `must be on or after From (${from}).`);
    const span = daysBetween(from, to) + 1;
    if (span > MAX_HISTORY_DAYS)
      throw invalid('to', `From and To span ${span} days; a trend spans at most ${MAX_HISTORY_DAYS}.`);
    const [kind, key] = scopeKey(scope);
    const [rows, build] = await Promise.all([
      this.repo.days(ctx.organizationId, kind, key, from, to),
      this.repo.build(ctx.organizationId),
    ]);
    return { scope, timeZone, from, to, days: rows.map(toTrendDay), build: build ? toBuild(build) : null };
  }

  /**
   * Computes the days from..to of every scope of the organisation again (replacing them), in one
   * statement. The daily job and the rebuild both come here.
   */
  async computeDays(organizationId: string, from: string, to: string): Promise<void> {
    const timeZone = await this.deps.timeZoneOf(organizationId);
    await this.repo.computeDays({
      organizationId,
      timeZone,
      from,
      to,
      mttrWindowDays: MTTR_WINDOW_DAYS,
      now: this.clock(),
    });
  }

  /**
   * The job: yesterday again and any day missed since the last one computed; the whole history
   * when asked, or when it was never built or built by another version.
   */
  async runSnapshot(
    organizationId: string,
    options: { rebuild: boolean },
    signal?: AbortSignal,
  ): Promise<void> {
    const timeZone = await this.deps.timeZoneOf(organizationId);
    const yesterday = addDays(localDay(this.clock(), timeZone), -1);
    const build = await this.repo.build(organizationId);
    const built = build?.version === HISTORY_VERSION && build.state === 'Completed';
    if (options.rebuild || !built) return this.rebuild(organizationId, yesterday, signal);
    const last = (await this.repo.lastDay(organizationId)) ?? yesterday;
    // Missed days (no instance ran at 00:10) are caught up, at most as far back as a rebuild goes.
    const from = laterDay(
      last < yesterday ? addDays(last, 1) : yesterday,
      addDays(yesterday, -(MAX_HISTORY_DAYS - 1)),
    );
    await this.computeDays(organizationId, from, yesterday);
    await this.repo.saveBuild(organizationId, { last_day: yesterday, updated_at: this.clock() });
  }

  /** Every day from the organisation's first finding (at most 400 days back) up to `last`. */
  private async rebuild(organizationId: string, last: string, signal?: AbortSignal): Promise<void> {
    const timeZone = await this.deps.timeZoneOf(organizationId);
    const firstSeen = await this.repo.firstFindingAt(organizationId);
    const first = laterDay(
      firstSeen ? localDay(firstSeen, timeZone) : last,
      addDays(last, -(MAX_HISTORY_DAYS - 1)),
    );
    const total = Math.max(0, daysBetween(first, last) + 1);
    const started = this.clock();
    await this.repo.saveBuild(organizationId, {
      version: HISTORY_VERSION,
      state: 'Running',
      first_day: first,
      last_day: null,
      days_done: 0,
      days_total: total,
      started_at: started,
      finished_at: null,
      last_error: null,
      updated_at: started,
    });
    try {
      let done = 0;
      for (let from = first; from <= last; from = addDays(from, REBUILD_CHUNK_DAYS)) {
        signal?.throwIfAborted();
        const to =
          addDays(from, REBUILD_CHUNK_DAYS - 1) < last ? addDays(from, REBUILD_CHUNK_DAYS - 1) : last;
        await this.computeDays(organizationId, from, to);
        done += daysBetween(from, to) + 1;
        await this.repo.saveBuild(organizationId, {
          days_done: done,
          last_day: to,
          updated_at: this.clock(),
        });
      }
      if (total > 0) await this.repo.removeOutside(organizationId, first, last);
      await this.repo.saveBuild(organizationId, {
        state: 'Completed',
        last_day: last,
        finished_at: this.clock(),
        updated_at: this.clock(),
      });
    } catch (error) {
      await this.repo.saveBuild(organizationId, {
        state: 'Failed',
        last_error: error instanceof Error ? error.message.slice(0, 1000) : String(error),
        updated_at: this.clock(),
      });
      throw error;
    }
  }

  /**
   * At start and now and then: every organisation gets its daily schedule (in its time zone),
   * and a rebuild when its history was never built or by another version. Never blocks start-up:
   * the rebuild is a job.
   */
  async prepare(): Promise<void> {
    for (const organizationId of await this.deps.organizationIds()) {
      await this.schedule(organizationId, await this.deps.timeZoneOf(organizationId));
      const build = await this.repo.build(organizationId);
      // Built, under way, or failed (its job retried; the daily job tries a rebuild again).
      if (build?.version === HISTORY_VERSION) continue;
      await this.rebuildLater(organizationId);
    }
  }

  /** A new organisation's daily schedule and first build (prepare does it for all at start). */
  async prepareOrganization(organizationId: string): Promise<void> {
    await this.schedule(organizationId, await this.deps.timeZoneOf(organizationId));
    await this.rebuildLater(organizationId);
  }

  /**
   * Asks for the organisation's history to be rebuilt by a job: what was added carries a past
   * (demo data's back-dated findings). A rebuild already waiting takes this request too.
   */
  async rebuildLater(organizationId: string): Promise<void> {
    await this.repo.saveBuild(organizationId, {
      version: HISTORY_VERSION,
      state: 'Queued',
      updated_at: this.clock(),
    });
    await this.jobs.enqueue(
      HISTORY_SNAPSHOT_JOB,
      { rebuild: true },
      { organizationId, dedupKey: `history-rebuild:${organizationId}:${HISTORY_VERSION}`, maxAttempts: 3 },
    );
  }

  /** How far the organisation's history is built, or null before its first build. */
  async build(organizationId: string): Promise<HistoryBuild | null> {
    const b = await this.repo.build(organizationId);
    return b ? toBuild(b) : null;
  }

  private async schedule(organizationId: string, timeZone: string): Promise<void> {
    await this.scheduler.upsert({
      organizationId,
      key: HISTORY_SCHEDULE_KEY,
      rule: { type: 'cron', expression: DAILY_AT, timeZone },
      jobKind: HISTORY_SNAPSHOT_JOB,
      payload: null,
      maxAttempts: 3,
    });
  }
}
