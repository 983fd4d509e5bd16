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

/** severity_rank (migration 0002) back to its severity. */
const SEVERITY_BY_RANK: Record<number, Severity> = {
  4: 'Critical',
  3: 'High',
  2: 'Medium',
  1: 'Low',
  0: 'Info',
};

/** What openSummary answers. */
export interface OpenSummary {
  bySeverity: OpenFiguresRow[];
  riskiestAssets: RiskiestAssetRow[];
  riskiestVulnerabilities: RiskiestVulnerabilityRow[];
  kevAssets: number;
}
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
   * Everything the dashboard counts of the open findings, in one statement that reads them once:
   * by severity (with a due date, not yet past it, in each age interval `boundaries[i]`, of a
   * known exploited vulnerability), the `limit` assets and vulnerabilities with the most open risk,
   * and the assets with an open KEV finding. The open findings are taken once (a materialised
   * CTE of a few narrow columns); each figure is a hash aggregate over them.
   */
  async openSummary(
    organizationId: string,
    scope: FigureScope,
    now: Date,
    boundaries: readonly AgeBoundary[],
    limit: number,
  ): Promise<OpenSummary> {
    const open = this.open(organizationId, scope).select([
      'f.asset_id',
      'f.vulnerability_id',
      'f.effective_severity',
      'f.severity_rank',
      'f.risk_score',
      'f.due_at',
      'f.first_seen_at',
      'v.kev',
    ]);
    const ages = boundaries.map((b) => {
      const conditions = [
        ...(b.after ? [sql`o.first_seen_at > ${b.after}::timestamptz`] : []),
        ...(b.before ? [sql`o.first_seen_at < ${b.before}::timestamptz`] : []),
      ];
      const where = conditions.length ? sql.join(conditions, sql` and `) : sql`true`;
      return sql`count(*) filter (where ${where})`;
    });
    const result = await sql<{
      severities: unknown;
      assets: unknown;
      vulnerabilities: unknown;
      kev_assets: string;
    }>`
      with o as materialized (${open})
      select
        (select coalesce(json_agg(s), '[]') from (
          select o.effective_severity as severity, count(*) as open,
            count(*) filter (where o.due_at is not null) as "withSla",
            count(*) filter (where o.due_at >= ${now}::timestamptz) as "withinSla",
            count(*) filter (where o.kev) as kev,
            count(*) filter (where o.kev and o.due_at < ${now}::timestamptz) as "kevOverdue",
            json_build_array(${sql.join(ages, sql`, `)}) as ages
          from o group by o.effective_severity) s) as severities,
        (select coalesce(json_agg(t order by t."riskExposure" desc, t."assetId"), '[]') from (
          select top."assetId", a.name, top.open, top."riskExposure", top."maxRisk", top.critical, top.high
          from (
            select o.asset_id as "assetId", count(*) as open, sum(o.risk_score) as "riskExposure",
              max(o.risk_score) as "maxRisk",
              count(*) filter (where o.effective_severity = 'Critical') as critical,
              count(*) filter (where o.effective_severity = 'High') as high
            from o group by o.asset_id order by sum(o.risk_score) desc, o.asset_id limit ${limit}) top
          join ${joinableAssets('a')} on a.organization_id = ${organizationId}::uuid and a.id = top."assetId") t) as assets,
        (select coalesce(json_agg(t order by t."riskExposure" desc, t."vulnerabilityId"), '[]') from (
          select by_vulnerability.*, v.cve_ids as "cveIds"
          from (
            -- By vulnerability and asset first: the assets of each vulnerability are then its rows.
            select pairs.vulnerability_id as "vulnerabilityId", bool_or(pairs.kev) as kev, sum(pairs.n) as open,
              count(*) as assets, sum(pairs.risk) as "riskExposure", max(pairs.max_risk) as "maxRisk",
              max(pairs.max_rank) as rank
            from (
              select o.vulnerability_id, o.asset_id, bool_or(o.kev) as kev, count(*) as n, sum(o.risk_score) as risk,
                max(o.risk_score) as max_risk, max(o.severity_rank) as max_rank
              from o group by o.vulnerability_id, o.asset_id) pairs
            group by pairs.vulnerability_id
            order by sum(pairs.risk) desc, pairs.vulnerability_id limit ${limit}) by_vulnerability
          join ${joinableVulnerabilities('v')}
            on v.organization_id = ${organizationId}::uuid and v.id = by_vulnerability."vulnerabilityId") t) as vulnerabilities,
        (select count(distinct o.asset_id) from o where o.kev) as kev_assets`.execute(this.db);
    const row = result.rows[0]!;
    const severities = row.severities as (Omit<OpenFiguresRow, 'ages'> & { ages: number[] })[];
    const assets = row.assets as RiskiestAssetRow[];
    const vulnerabilities = row.vulnerabilities as (Omit<RiskiestVulnerabilityRow, 'severity' | 'title'> & {
      rank: number;
    })[];
    const titles = await this.titles(
      organizationId,
      vulnerabilities.map((v) => v.vulnerabilityId),
    );
    return {
      bySeverity: severities.map((r) => ({
        severity: r.severity,
        open: count(r.open),
        withSla: count(r.withSla),
        withinSla: count(r.withinSla),
        ages: r.ages.map(count),
        kev: count(r.kev),
        kevOverdue: count(r.kevOverdue),
      })),
      riskiestAssets: assets.map((a) => ({
        assetId: a.assetId,
        name: a.name,
        open: count(a.open),
        riskExposure: count(a.riskExposure),
        maxRisk: count(a.maxRisk),
        critical: count(a.critical),
        high: count(a.high),
      })),
      riskiestVulnerabilities: vulnerabilities.map((v) => ({
        vulnerabilityId: v.vulnerabilityId,
        title: titles.get(v.vulnerabilityId) ?? '',
        cveIds: v.cveIds ?? [],
        kev: v.kev,
        open: count(v.open),
        assets: count(v.assets),
        riskExposure: count(v.riskExposure),
        maxRisk: count(v.maxRisk),
        severity: SEVERITY_BY_RANK[count(v.rank)] ?? 'Info',
      })),
      kevAssets: count(row.kev_assets),
    };
  }

  /** A finding's title of each of these vulnerabilities (findings carry their vulnerability's title). */
  private async titles(organizationId: string, vulnerabilityIds: string[]): Promise<Map<string, string>> {
    if (vulnerabilityIds.length === 0) return new Map();
    const rows = await sql<{ id: string; title: string }>`
      select ids.id, (select f.title from findings f where f.organization_id = ${organizationId}::uuid
          and f.vulnerability_id = ids.id limit 1) as title
      from unnest(${vulnerabilityIds}::uuid[]) as ids(id)`.execute(this.db);
    return new Map(rows.rows.map((r) => [r.id, r.title]));
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
}
