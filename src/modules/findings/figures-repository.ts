import { type Kysely, sql } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import { assetTagged, joinableAssets } from '../assets/queries.js';
import { systemScanGroupScopes } from '../systemscans/queries.js';
import { joinableVulnerabilities } from '../vulnerabilities/queries.js';
import { webScanGroupScopes } from '../webscans/queries.js';

/**
 * Which findings the figures are of: the organisation's, or those on assets with a tag, or those
 * last reported by a system or web scan of a scan group (as the findings list's ScanGroupId).
 */
export interface FigureScope {
  tag?: string;
  scanGroupId?: string;
}

/**
 * An age interval as the findings list filters it: first seen after `after` and before `before`
 * (both exclusive, as FirstSeenAfter and FirstSeenBefore); an open end is undefined.
 */
export interface AgeBoundary {
  after?: Date;
  before?: Date;
}

/** The open states: what the dashboard and the findings list call open. */
const OPEN_STATES = ['Open', 'Reopened'] as const;

const DAY_SECONDS = 86_400;

/** One severity's open findings: SLA, ages (one count per boundary interval) and KEV. */
export interface OpenFiguresRow {
  severity: Severity;
  open: number;
  withSla: number;
  withinSla: number;
  /** Counts per age bucket, in the order of the boundaries given. */
  ages: number[];
  kev: number;
  kevOverdue: number;
}

/** One severity's findings fixed in a window: SLA kept, days to fix. */
export interface FixedFiguresRow {
  severity: Severity;
  fixed: number;
  withSla: number;
  withinSla: number;
  meanDays: number | null;
  medianDays: number | null;
}

export interface RiskiestAssetRow {
  assetId: string;
  name: string;
  open: number;
  riskExposure: number;
  maxRisk: number;
  critical: number;
  high: number;
}

export interface RiskiestVulnerabilityRow {
  vulnerabilityId: string;
  title: string;
  cveIds: string[];
  kev: boolean;
  open: number;
  assets: number;
  riskExposure: number;
  maxRisk: number;
  severity: Severity;
}

const count = (n: unknown) => Number(n ?? 0);
const decimal = (n: unknown) => (n === null || n === undefined ? null : Number(n));

/**
 * The aggregates of the dashboard over the findings of one organisation (and an asset tag or a
 * set of scan scopes): a handful of grouped reads of the open (or recently fixed) findings, each
 * starting from the (organization_id, state, …) index.
 */
export class FindingFiguresRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Confirmed findings of the organisation in the scope, joined with their asset `a` and
   * vulnerability `v`. Unconfirmed findings are left out, as the findings list leaves them out by
   * default: the dashboard's figures and the lists its links open count the same findings.
   */
  private scoped(organizationId: string, scope: FigureScope) {
    let q = this.db
      .selectFrom('findings as f')
      .innerJoin(joinableAssets('a'), (j) =>
        j.onRef('a.organization_id', '=', 'f.organization_id').onRef('a.id', '=', 'f.asset_id'),
      )
      .innerJoin(joinableVulnerabilities('v'), (j) =>
        j.onRef('v.organization_id', '=', 'f.organization_id').onRef('v.id', '=', 'f.vulnerability_id'),
      )
      .where('f.organization_id', '=', organizationId)
      .where('f.confidence', '=', 'Confirmed');
    if (scope.tag !== undefined) q = q.where(assetTagged('a', scope.tag));
    if (scope.scanGroupId !== undefined)
      q = q.where(sql<boolean>`f.scope_name in (
        select g.scope_name from ${systemScanGroupScopes('g')}
          where g.organization_id = f.organization_id and g.group_id = ${scope.scanGroupId}::uuid
        union all
        select w.scope_name from ${webScanGroupScopes('w')}
          where w.organization_id = f.organization_id and w.group_id = ${scope.scanGroupId}::uuid)`);
    return q;
  }

  private open(organizationId: string, scope: FigureScope) {
    return this.scoped(organizationId, scope).where('f.state', 'in', [...OPEN_STATES]);
  }

  /**
   * Open findings by severity: with a due date, not yet past it, in each age interval
   * (`boundaries[i]`), and of a known exploited vulnerability.
   */
  async openFigures(
    organizationId: string,
    scope: FigureScope,
    now: Date,
    boundaries: readonly AgeBoundary[],
  ): Promise<OpenFiguresRow[]> {
    const ageColumns = boundaries.map((b, i) => {
      const conditions = [
        ...(b.after ? [sql`f.first_seen_at > ${b.after}::timestamptz`] : []),
        ...(b.before ? [sql`f.first_seen_at < ${b.before}::timestamptz`] : []),
      ];
      const where = conditions.length ? sql.join(conditions, sql` and `) : sql`true`;
      return sql<string>`count(*) filter (where ${where})`.as(`age${i}`);
    });
    const rows = await this.open(organizationId, scope)
      .select([
        'f.effective_severity as severity',
        sql<string>`count(*)`.as('open'),
        sql<string>`count(*) filter (where f.due_at is not null)`.as('withSla'),
        sql<string>`count(*) filter (where f.due_at >= ${now}::timestamptz)`.as('withinSla'),
        sql<string>`count(*) filter (where v.kev)`.as('kev'),
        sql<string>`count(*) filter (where v.kev and f.due_at < ${now}::timestamptz)`.as('kevOverdue'),
        ...ageColumns,
      ])
      .groupBy('f.effective_severity')
      .execute();
    return rows.map((r) => {
      const row = r as unknown as Record<string, unknown>;
      return {
        severity: r.severity,
        open: count(r.open),
        withSla: count(r.withSla),
        withinSla: count(r.withinSla),
        ages: boundaries.map((_, i) => count(row[`age${i}`])),
        kev: count(r.kev),
        kevOverdue: count(r.kevOverdue),
      };
    });
  }

  /** Findings now Fixed whose fix falls in (since, until], by severity, with days from first sight to fix. */
  async fixedFigures(
    organizationId: string,
    scope: FigureScope,
    since: Date,
    until: Date,
  ): Promise<FixedFiguresRow[]> {
    const days = sql`extract(epoch from (f.fixed_at - f.first_seen_at)) / ${DAY_SECONDS}`;
    const rows = await this.scoped(organizationId, scope)
      .where('f.state', '=', 'Fixed')
      .where('f.fixed_at', '>', since)
      .where('f.fixed_at', '<=', until)
      .select([
        'f.effective_severity as severity',
        sql<string>`count(*)`.as('fixed'),
        sql<string>`count(*) filter (where f.due_at is not null)`.as('withSla'),
        sql<string>`count(*) filter (where f.fixed_at <= f.due_at)`.as('withinSla'),
        sql<string | null>`avg(${days})`.as('meanDays'),
        sql<string | null>`percentile_cont(0.5) within group (order by ${days})`.as('medianDays'),
      ])
      .groupBy('f.effective_severity')
      .execute();
    return rows.map((r) => ({
      severity: r.severity,
      fixed: count(r.fixed),
      withSla: count(r.withSla),
      withinSla: count(r.withinSla),
      meanDays: decimal(r.meanDays),
      medianDays: decimal(r.medianDays),
    }));
  }

  /** The assets with the most open risk (sum of their open findings' risk scores), at most `limit`. */
  async riskiestAssets(
    organizationId: string,
    scope: FigureScope,
    limit: number,
  ): Promise<RiskiestAssetRow[]> {
    const rows = await this.open(organizationId, scope)
      .select([
        'f.asset_id as assetId',
        'a.name',
        sql<string>`count(*)`.as('open'),
        sql<string>`sum(f.risk_score)`.as('riskExposure'),
        sql<string>`max(f.risk_score)`.as('maxRisk'),
        sql<string>`count(*) filter (where f.effective_severity = 'Critical')`.as('critical'),
        sql<string>`count(*) filter (where f.effective_severity = 'High')`.as('high'),
      ])
      .groupBy(['f.asset_id', 'a.name'])
      .orderBy(sql`sum(f.risk_score)`, 'desc')
      .orderBy('f.asset_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      assetId: r.assetId,
      name: r.name,
      open: count(r.open),
      riskExposure: count(r.riskExposure),
      maxRisk: count(r.maxRisk),
      critical: count(r.critical),
      high: count(r.high),
    }));
  }

  /** The vulnerabilities with the most open risk across the assets, at most `limit`. */
  async riskiestVulnerabilities(
    organizationId: string,
    scope: FigureScope,
    limit: number,
  ): Promise<RiskiestVulnerabilityRow[]> {
    const rows = await this.open(organizationId, scope)
      .select([
        'f.vulnerability_id as vulnerabilityId',
        sql<string>`min(f.title)`.as('title'),
        'v.cve_ids as cveIds',
        'v.kev',
        sql<string>`count(*)`.as('open'),
        sql<string>`count(distinct f.asset_id)`.as('assets'),
        sql<string>`sum(f.risk_score)`.as('riskExposure'),
        sql<string>`max(f.risk_score)`.as('maxRisk'),
        // The worst severity of its findings (a report may rate the same weakness differently).
        sql<Severity>`(array_agg(f.effective_severity order by f.severity_rank desc))[1]`.as('severity'),
      ])
      .groupBy(['f.vulnerability_id', 'v.cve_ids', 'v.kev'])
      .orderBy(sql`sum(f.risk_score)`, 'desc')
      .orderBy('f.vulnerability_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      vulnerabilityId: r.vulnerabilityId,
      title: r.title,
      cveIds: r.cveIds ?? [],
      kev: r.kev,
      open: count(r.open),
      assets: count(r.assets),
      riskExposure: count(r.riskExposure),
      maxRisk: count(r.maxRisk),
      severity: r.severity,
    }));
  }

  /** How many assets have an open finding of a known exploited vulnerability. */
  async kevAssets(organizationId: string, scope: FigureScope): Promise<number> {
    const row = await this.open(organizationId, scope)
      .where('v.kev', '=', true)
      .select(sql<string>`count(distinct f.asset_id)`.as('n'))
      .executeTakeFirstOrThrow();
    return count(row.n);
  }
}
