import { SEVERITIES, type Severity } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { invalid } from '../../problems/app-error.js';
import type { ServiceContext } from '../context.js';
import type { AgeBoundary, FigureScope, FindingFiguresService } from '../findings/figures-service.js';
import type { Import } from '../imports/types.js';
import type { ScanRun } from '../scanruns/types.js';
import type { SlaDays } from '../settings/service.js';
import type { AgeingBucket, BySeverity, Dashboard, DashboardScope, MttrFigure, SlaFigure } from './types.js';

// What the dashboard asks of the modules it reads, by the little it uses of each.

export interface DashboardSources {
  figures: FindingFiguresService;
  sla(organizationId: string): Promise<SlaDays>;
  recentScanRuns(ctx: ServiceContext, q: { limit: number; sourceIds?: string[] }): Promise<ScanRun[]>;
  recentImports(ctx: ServiceContext, q: { limit: number; scopeNames?: string[] }): Promise<Import[]>;
  tagNames(ctx: ServiceContext, limit: number): Promise<string[]>;
  /**
   * A scan group of the organisation (404 when it has none of this id), with its system and web
   * scans and the scopes their findings are reported in.
   */
  scanGroup(
    ctx: ServiceContext,
    id: string,
  ): Promise<{ id: string; name: string; scanIds: string[]; scopeNames: string[] }>;
}

/** Fixed findings count towards SLA compliance and time to remediate for this many days back. */
export const WINDOW_DAYS = 90;
/** How many riskiest assets, vulnerabilities, last scans and imports the dashboard lists. */
export const TOP = 10;
export const RECENT = 5;
const MAX_TAGS = 500;

/** The ageing buckets: days since first seen, whole days (0–30 is less than 31 days). */
export const AGE_BUCKETS: readonly { from: number; to: number | null }[] = [
  { from: 0, to: 30 },
  { from: 31, to: 90 },
  { from: 91, to: 180 },
  { from: 181, to: 365 },
  { from: 366, to: null },
];

const DAY_MS = 86_400_000;

const zeroBySeverity = (): BySeverity => ({ Critical: 0, High: 0, Medium: 0, Low: 0, Info: 0 });

function percentOf(withinSla: number, withSla: number): SlaFigure {
  return {
    withSla,
    withinSla,
    percent: withSla === 0 ? null : Math.round((withinSla / withSla) * 1000) / 10,
  };
}

const oneDecimal = (n: number) => Math.round(n * 10) / 10;
const twoDecimals = (n: number) => Math.round(n * 100) / 100;

/**
 * The age interval of a bucket as findings list filters: first seen after `now - (to + 1) days`
 * and before `now - from days` (inclusive: the filter is strict, so one millisecond later, the
 * precision every time Rampart writes has).
 */
export function ageBoundary(now: Date, bucket: { from: number; to: number | null }): AgeBoundary {
  return {
    ...(bucket.to === null ? {} : { after: new Date(now.getTime() - (bucket.to + 1) * DAY_MS) }),
    ...(bucket.from === 0 ? {} : { before: new Date(now.getTime() - bucket.from * DAY_MS + 1) }),
  };
}

const bucketLabel = (b: { from: number; to: number | null }) =>
  b.to === null ? `>${b.from - 1}` : `${b.from}–${b.to}`;

/**
 * The dashboard: the current state of an organisation's findings (or a tag's, or a scan group's)
 * from a few aggregates, and its latest scans and imports.
 */
export class DashboardService {
  constructor(
    private readonly sources: DashboardSources,
    private readonly clock: Clock,
  ) {}

  /** The scope a request names: a tag or a scan group, not both; a scan group must exist. */
  async scope(
    ctx: ServiceContext,
    q: { tag?: string; scanGroupId?: string },
  ): Promise<{ scope: DashboardScope; figures: FigureScope; scanIds?: string[]; scanScopes?: string[] }> {
    if (q.tag !== undefined && q.scanGroupId !== undefined)
      throw invalid('scanGroupId', 'give either Tag or ScanGroupId, not both');
    if (q.tag !== undefined) return { scope: { kind: 'Tag', tag: q.tag }, figures: { tag: q.tag } };
    if (q.scanGroupId !== undefined) {
      const group = await this.sources.scanGroup(ctx, q.scanGroupId);
      return {
        scope: { kind: 'ScanGroup', scanGroupId: group.id, scanGroupName: group.name },
        figures: { scanGroupId: group.id },
        scanIds: group.scanIds,
        scanScopes: group.scopeNames,
      };
    }
    return { scope: { kind: 'Organization' }, figures: {} };
  }

  async dashboard(ctx: ServiceContext, q: { tag?: string; scanGroupId?: string }): Promise<Dashboard> {
    const { scope, figures, scanIds, scanScopes } = await this.scope(ctx, q);
    const now = this.clock();
    const since = new Date(now.getTime() - WINDOW_DAYS * DAY_MS);
    const boundaries = AGE_BUCKETS.map((b) => ageBoundary(now, b));
    const { figures: f } = this.sources;
    const scopeNames = scope.kind === 'ScanGroup' ? scanScopes : undefined;
    const [slaDays, summary, fixed, lastScans, lastImports, tags] = await Promise.all([
      this.sources.sla(ctx.organizationId),
      f.openSummary(ctx, figures, now, boundaries, TOP),
      f.fixedFigures(ctx, figures, since, now),
      this.sources.recentScanRuns(ctx, { limit: RECENT, ...(scanIds ? { sourceIds: scanIds } : {}) }),
      this.sources.recentImports(ctx, { limit: RECENT, ...(scopeNames ? { scopeNames } : {}) }),
      this.sources.tagNames(ctx, MAX_TAGS),
    ]);
    const { bySeverity: open, riskiestAssets, riskiestVulnerabilities, kevAssets } = summary;

    const openBySeverity = zeroBySeverity();
    const ageing: AgeingBucket[] = AGE_BUCKETS.map((b, i) => ({
      label: bucketLabel(b),
      fromDays: b.from,
      toDays: b.to,
      firstSeenAfter: boundaries[i]?.after ?? null,
      firstSeenBefore: boundaries[i]?.before ?? null,
      counts: zeroBySeverity(),
      total: 0,
    }));
    let openWithSla = 0;
    let openWithinSla = 0;
    const kev = { openFindings: 0, assetsAffected: kevAssets, overdue: 0 };
    for (const row of open) {
      openBySeverity[row.severity] += row.open;
      openWithSla += row.withSla;
      openWithinSla += row.withinSla;
      kev.openFindings += row.kev;
      kev.overdue += row.kevOverdue;
      row.ages.forEach((n, i) => {
        const bucket = ageing[i]!;
        bucket.counts[row.severity] += n;
        bucket.total += n;
      });
    }
    const total = SEVERITIES.reduce((sum, s) => sum + openBySeverity[s], 0);

    const fixedBySeverity = new Map(fixed.map((r) => [r.severity, r]));
    const fixedWithSla = fixed.reduce((sum, r) => sum + r.withSla, 0);
    const fixedWithinSla = fixed.reduce((sum, r) => sum + r.withinSla, 0);
    const mttr: MttrFigure[] = SEVERITIES.map((severity: Severity) => {
      const r = fixedBySeverity.get(severity);
      return {
        severity,
        slaDays: slaDays[severity],
        meanDays: r?.meanDays == null ? null : twoDecimals(r.meanDays),
        medianDays: r?.medianDays == null ? null : twoDecimals(r.medianDays),
        count: r?.fixed ?? 0,
        withinSla: r?.withinSla ?? 0,
      };
    });

    return {
      scope,
      generatedAt: now,
      windowDays: WINDOW_DAYS,
      windowStart: since,
      tags,
      slaDays,
      open: { ...openBySeverity, total, pastSla: openWithSla - openWithinSla },
      sla: {
        open: percentOf(openWithinSla, openWithSla),
        fixed: percentOf(fixedWithinSla, fixedWithSla),
        overall: percentOf(openWithinSla + fixedWithinSla, openWithSla + fixedWithSla),
      },
      ageing,
      mttr,
      riskiestAssets: riskiestAssets.map((a) => ({
        assetId: a.assetId,
        name: a.name,
        openFindings: a.open,
        critical: a.critical,
        high: a.high,
        riskExposure: oneDecimal(a.riskExposure),
        maxRisk: oneDecimal(a.maxRisk),
      })),
      riskiestVulnerabilities: riskiestVulnerabilities.map((v) => ({
        vulnerabilityId: v.vulnerabilityId,
        title: v.title,
        cveIds: v.cveIds,
        kev: v.kev,
        severity: v.severity,
        openFindings: v.open,
        assetsAffected: v.assets,
        riskExposure: oneDecimal(v.riskExposure),
        maxRisk: oneDecimal(v.maxRisk),
      })),
      kev,
      lastScans,
      lastImports,
    };
  }
}
