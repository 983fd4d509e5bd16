import { type Kysely, type SelectQueryBuilder, sql, type Transaction, type UpdateObject } from 'kysely';
import type { DB, FindingConfidence, FindingState, LocationKind, Severity } from '../../db/schema.js';
import { isoText } from '../../db/text.js';
import { assetTagged, joinableAssets } from '../assets/queries.js';
import { systemScanGroupScopes } from '../systemscans/queries.js';
import {
  joinableVulnerabilities,
  rankingCvssScore,
  vulnerabilityHasCve,
} from '../vulnerabilities/queries.js';
import { webScanGroupScopes } from '../webscans/queries.js';
import { HISTORY_COLUMNS, type HistoryEntryWrite, historyEntryValues } from './queries.js';
import type {
  Finding,
  FindingEvent,
  FindingExport,
  FindingFigures,
  FindingPageItem,
  FindingRanking,
  FindingReportGrouping,
  FindingReportRow,
  FindingSummary,
  ScanLocation,
  ScanLocationQuery,
} from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

// When the finding was last seen: a re-import that reports every finding of a sighting moves the
// sighting instead of rewriting each finding (finding_sightings, migration 0021).
const LAST_SEEN = sql<Date>`greatest(f.last_seen_at, s.seen_at)`;

const FINDING_COLUMNS = [
  'f.id',
  'f.organization_id as organizationId',
  'f.asset_id as assetId',
  'f.vulnerability_id as vulnerabilityId',
  'f.location_kind as locationKind',
  'f.port',
  'f.protocol',
  'f.url',
  'f.parameter',
  'f.file_path as filePath',
  'f.line',
  'f.package_name as packageName',
  'f.package_version as packageVersion',
  'f.title',
  'f.severity',
  'f.severity_override as severityOverride',
  'f.severity_override_reason as severityOverrideReason',
  'f.effective_severity as effectiveSeverity',
  'f.state',
  'f.state_reason as stateReason',
  'f.risk_accepted_until as riskAcceptedUntil',
  'f.risk_score as riskScore',
  'f.due_at as dueAt',
  'f.confidence',
  'f.source',
  'f.tool_finding_id as toolFindingId',
  'f.first_seen_at as firstSeenAt',
  LAST_SEEN.as('lastSeenAt'),
  'f.fixed_at as fixedAt',
  'f.created_at as createdAt',
  'f.updated_at as updatedAt',
  'a.name as assetName',
  'v.cve_ids as cveIds',
  'v.kev',
  'v.epss_score as epssScore',
  'v.epss_percentile as epssPercentile',
  'v.kev_due_date as kevDueDate',
  'v.cvss3_score as cvss3Score',
  'v.cvss3_vector as cvss3Vector',
  'v.cvss4_score as cvss4Score',
  'v.cvss2_score as cvss2Score',
  'v.plugin_id as pluginId',
] as const;

export interface FindingInsert {
  id: string;
  assetId: string;
  vulnerabilityId: string;
  dedupKey: string;
  location: {
    kind: LocationKind;
    port?: number | null;
    protocol?: string | null;
    url?: string | null;
    parameter?: string | null;
    filePath?: string | null;
    line?: number | null;
    packageName?: string | null;
    packageVersion?: string | null;
  };
  title: string;
  severity: Severity;
  riskScore: number;
  dueAt: Date | null;
  evidence: string | null;
  source: string;
  toolFindingId: string | null;
  seenAt: Date;
  /** The application's clock when the finding is created (seenAt may be the report's time). */
  createdAt: Date;
}

export interface FindingFilter {
  states?: FindingState[];
  /** Confirmed or Unconfirmed findings only; undefined: both. */
  confidence?: FindingConfidence;
  severities?: Severity[];
  assetId?: string;
  tag?: string;
  vulnerabilityId?: string;
  cve?: string;
  kev?: boolean;
  epssMin?: number;
  riskMin?: number;
  dueBefore?: Date;
  firstSeenAfter?: Date;
  firstSeenBefore?: Date;
  fixedAfter?: Date;
  fixedBefore?: Date;
  lastSeenBefore?: Date;
  search?: string;
  /** Assets whose name matches `search`, resolved by the service before querying. */
  searchAssetIds?: string[];
  /** Vulnerabilities that carry `cve`, resolved by the service before querying. */
  cveVulnerabilityIds?: string[];
  /** Findings an import created, fixed or reopened (from their history). */
  importId?: string;
  importChange?: 'New' | 'Fixed' | 'Reopened';
  ids?: string[];
  /** Findings last reported in this scope (a Rampart scan's `system-scan:<id>`). */
  scopeName?: string;
  /** Findings last reported in any of these scopes. */
  scopeNames?: string[];
  /** Findings last reported by a system or web scan of this scan group. */
  scanGroupId?: string;
}

/** Sort orders with the expressions their keyset cursors compare. */
export const FINDING_SORTS = {
  '-Risk': { expr: sql`f.risk_score`, cast: 'numeric', desc: true },
  '-Severity': { expr: sql`f.severity_rank`, cast: 'smallint', desc: true },
  '-FirstSeen': { expr: sql`f.first_seen_at`, cast: 'timestamptz', desc: true },
  '-LastSeen': { expr: LAST_SEEN, cast: 'timestamptz', desc: true },
  DueAt: { expr: sql`coalesce(f.due_at, 'infinity'::timestamptz)`, cast: 'timestamptz', desc: false },
} as const;
export type FindingSort = keyof typeof FINDING_SORTS;

/** severity_rank (migration 0002) back to the severity. */
const SEVERITY_OF_RANK: Record<number, Severity> = {
  4: 'Critical',
  3: 'High',
  2: 'Medium',
  1: 'Low',
  0: 'Info',
};

/** Above this many matches a TotalCount nobody asked for is left out (IncludeTotal). */
export const TOTAL_COUNT_CAP = 1_000;

/** The organisation's findings `f` with their asset `a` and vulnerability `v`: what lists read. */
function baseQuery(organizationId: string, db: Db) {
  return (
    db
      .selectFrom('findings as f')
      .innerJoin(joinableAssets('a'), (j) =>
        j.onRef('a.organization_id', '=', 'f.organization_id').onRef('a.id', '=', 'f.asset_id'),
      )
      .innerJoin(joinableVulnerabilities('v'), (j) =>
        j.onRef('v.organization_id', '=', 'f.organization_id').onRef('v.id', '=', 'f.vulnerability_id'),
      )
      // By primary key and left: a query that reads nothing of it (counts, ids) does not join it.
      .leftJoin('finding_sightings as s', (j) =>
        j.onRef('s.organization_id', '=', 'f.organization_id').onRef('s.id', '=', 'f.sighting_id'),
      )
      .where('f.organization_id', '=', organizationId)
  );
}

/** The finding `f` was last reported by a system or web scan of the scan group. */
function inScanGroup(groupId: string) {
  return sql<boolean>`f.scope_name in (
    select g.scope_name from ${systemScanGroupScopes('g')}
      where g.organization_id = f.organization_id and g.group_id = ${groupId}::uuid
    union all
    select w.scope_name from ${webScanGroupScopes('w')}
      where w.organization_id = f.organization_id and w.group_id = ${groupId}::uuid)`;
}

type BaseQuery = ReturnType<typeof baseQuery>;
type BaseSources = BaseQuery extends SelectQueryBuilder<infer D, infer T, infer _O> ? [D, T] : never;

export class FindingRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Findings of a scope, or these ids, with where they are (at most `limit`). */
  async scanLocations(organizationId: string, q: ScanLocationQuery, limit: number): Promise<ScanLocation[]> {
    let query = this.db
      .selectFrom('findings as f')
      .innerJoin(joinableAssets('a'), (j) =>
        j.onRef('a.organization_id', '=', 'f.organization_id').onRef('a.id', '=', 'f.asset_id'),
      )
      .innerJoin(joinableVulnerabilities('v'), (j) =>
        j.onRef('v.organization_id', '=', 'f.organization_id').onRef('v.id', '=', 'f.vulnerability_id'),
      )
      .select([
        'f.id',
        'f.asset_id as assetId',
        'f.state',
        'f.scope_name as scopeName',
        'f.source',
        'f.location_kind as locationKind',
        'f.port',
        'f.url',
        'a.ip_addresses as ipAddresses',
        'v.plugin_id as pluginId',
      ])
      .where('f.organization_id', '=', organizationId);
    if (q.scopeName !== undefined) query = query.where('f.scope_name', '=', q.scopeName);
    if (q.pluginIds)
      query = q.pluginIds.length
        ? query.where('v.plugin_id', 'in', q.pluginIds)
        : query.where(sql<boolean>`false`);
    if (q.scopePrefix !== undefined)
      query = query.where(sql<boolean>`starts_with(f.scope_name, ${q.scopePrefix}::text)`);
    if (q.addresses) query = query.where(sql<boolean>`a.ip_addresses && ${q.addresses}::text[]`);
    if (q.ids) query = q.ids.length ? query.where('f.id', 'in', q.ids) : query.where(sql<boolean>`false`);
    if (q.states) query = query.where('f.state', 'in', q.states);
    return query.orderBy('f.id').limit(limit).execute();
  }

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  private base(organizationId: string, db: Db = this.db) {
    return baseQuery(organizationId, db);
  }

  findById(organizationId: string, id: string, db: Db = this.db): Promise<Finding | undefined> {
    return this.base(organizationId, db)
      .select([
        ...FINDING_COLUMNS,
        'f.evidence',
        // The sighting's import when it was carried past the finding's own last writer.
        sql<string | null>`coalesce(s.import_id, f.last_import_id)`.as('lastImportId'),
        'f.scope_name as scopeName',
      ])
      .where('f.id', '=', id)
      .executeTakeFirst();
  }

  findByDedupKey(organizationId: string, dedupKey: string, db: Db) {
    return db
      .selectFrom('findings')
      .select(['id', 'state'])
      .where('organization_id', '=', organizationId)
      .where('dedup_key', '=', dedupKey)
      .forUpdate()
      .executeTakeFirst();
  }

  async insert(organizationId: string, f: FindingInsert, db: Db): Promise<void> {
    await db
      .insertInto('findings')
      .values({
        organization_id: organizationId,
        id: f.id,
        asset_id: f.assetId,
        vulnerability_id: f.vulnerabilityId,
        dedup_key: f.dedupKey,
        location_kind: f.location.kind,
        port: f.location.port ?? null,
        protocol: f.location.protocol ?? null,
        url: f.location.url ?? null,
        parameter: f.location.parameter ?? null,
        file_path: f.location.filePath ?? null,
        line: f.location.line ?? null,
        package_name: f.location.packageName ?? null,
        package_version: f.location.packageVersion ?? null,
        title: f.title,
        severity: f.severity,
        state: 'Open',
        risk_score: f.riskScore,
        due_at: f.dueAt,
        evidence: f.evidence,
        source: f.source,
        tool_finding_id: f.toolFindingId,
        first_seen_at: f.seenAt,
        last_seen_at: f.seenAt,
        created_at: f.createdAt,
        updated_at: f.createdAt,
      })
      .execute();
  }

  /** Writes `changes` to one finding, stamped as updated at `at`. */
  private async updateOne(
    db: Db,
    organizationId: string,
    id: string,
    at: Date,
    changes: UpdateObject<DB, 'findings'>,
  ): Promise<void> {
    await db
      .updateTable('findings')
      .set({ ...changes, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async markSeen(
    organizationId: string,
    id: string,
    seenAt: Date,
    evidence: string | null,
    at: Date,
    db: Db,
  ): Promise<void> {
    await this.updateOne(db, organizationId, id, at, {
      last_seen_at: sql`greatest(last_seen_at, ${seenAt})`,
      evidence: sql`coalesce(${evidence}, evidence)`,
    });
  }

  async setState(
    organizationId: string,
    id: string,
    change: { state: FindingState; reason: string | null; until: Date | null; fixedAt?: Date | null },
    at: Date,
    db: Db,
  ): Promise<void> {
    await this.updateOne(db, organizationId, id, at, {
      state: change.state,
      state_reason: change.reason,
      risk_accepted_until: change.until,
      ...(change.fixedAt !== undefined ? { fixed_at: change.fixedAt } : {}),
    });
  }

  /**
   * Risk score and due date from the finding's vulnerability intelligence and its asset, by the
   * database's rampart_risk_score / rampart_due_at (src/db/functions/; docs/intelligence.md "Risk score"). A
   * severity a person set outranks the CVSS-derived impact. Writes only rows whose values change.
   */
  async rescore(
    organizationId: string,
    scope: RescoreScope,
    sla: SlaDaysSql,
    at: Date,
    db: Db = this.db,
  ): Promise<number> {
    const where =
      'findingIds' in scope
        ? sql`f.id = any(${scope.findingIds}::uuid[])`
        : 'vulnerabilityIds' in scope
          ? sql`f.vulnerability_id = any(${scope.vulnerabilityIds}::uuid[])`
          : sql`f.asset_id = ${scope.assetId}::uuid`;
    const result = await sql`
      with scored as (
        select f.id, ${riskScoreSql('f', 'v', 'a')} as risk_score, ${dueAtSql('f', 'v', sla)} as due_at
        from findings f
        join ${joinableVulnerabilities('v')} on v.organization_id = f.organization_id and v.id = f.vulnerability_id
        join ${joinableAssets('a')} on a.organization_id = f.organization_id and a.id = f.asset_id
        where f.organization_id = ${organizationId} and ${where}
      )
      update findings f set risk_score = s.risk_score, due_at = s.due_at, updated_at = ${at}::timestamptz
      from scored s
      where f.organization_id = ${organizationId} and f.id = s.id
        and (f.risk_score, f.due_at) is distinct from (s.risk_score, s.due_at)`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  }

  async setSeverityOverride(
    organizationId: string,
    id: string,
    change: { severity: Severity | null; reason: string | null },
    at: Date,
    db: Db,
  ): Promise<void> {
    await this.updateOne(db, organizationId, id, at, {
      severity_override: change.severity,
      severity_override_reason: change.reason,
    });
  }

  async addEvent(
    organizationId: string,
    e: HistoryEntryWrite & { findingId: string; reason?: string | null },
    db: Db,
  ): Promise<void> {
    await db
      .insertInto('finding_events')
      .values({ ...historyEntryValues(organizationId, e), finding_id: e.findingId, reason: e.reason ?? null })
      .execute();
  }

  events(organizationId: string, findingId: string): Promise<FindingEvent[]> {
    return this.db
      .selectFrom('finding_events')
      .select([...HISTORY_COLUMNS, 'reason'])
      .where('organization_id', '=', organizationId)
      .where('finding_id', '=', findingId)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute();
  }

  private filtered<O>(q: SelectQueryBuilder<BaseSources[0], BaseSources[1], O>, f: FindingFilter) {
    if (f.states?.length) q = q.where('f.state', 'in', f.states);
    if (f.confidence) q = q.where('f.confidence', '=', f.confidence);
    if (f.severities?.length) q = q.where('f.effective_severity', 'in', f.severities);
    if (f.assetId) q = q.where('f.asset_id', '=', f.assetId);
    if (f.vulnerabilityId) q = q.where('f.vulnerability_id', '=', f.vulnerabilityId);
    if (f.tag) q = q.where(assetTagged('a', f.tag));
    if (f.cveVulnerabilityIds) {
      // Known ids, not a join condition: one vulnerability's findings then come in index order.
      const ids = f.cveVulnerabilityIds;
      q = q.where((eb) => (ids.length ? eb('f.vulnerability_id', 'in', ids) : eb.val(false)));
    } else if (f.cve) {
      q = q.where(vulnerabilityHasCve('v', f.cve));
    }
    if (f.kev !== undefined) q = q.where('v.kev', '=', f.kev);
    if (f.epssMin !== undefined) q = q.where('v.epss_score', '>=', String(f.epssMin));
    if (f.riskMin !== undefined) q = q.where('f.risk_score', '>=', String(f.riskMin));
    if (f.dueBefore) q = q.where('f.due_at', '<', f.dueBefore);
    if (f.firstSeenAfter) q = q.where('f.first_seen_at', '>', f.firstSeenAfter);
    if (f.firstSeenBefore) q = q.where('f.first_seen_at', '<', f.firstSeenBefore);
    if (f.fixedAfter) q = q.where('f.fixed_at', '>', f.fixedAfter);
    if (f.fixedBefore) q = q.where('f.fixed_at', '<', f.fixedBefore);
    if (f.lastSeenBefore) q = q.where(sql<boolean>`${LAST_SEEN} < ${f.lastSeenBefore}`);
    if (f.search) {
      // Words of the title (GIN index), or an asset whose name matches (ids looked up first, so
      // that the two conditions combine as a bitmap OR instead of a per-row subquery).
      const words = sql<boolean>`f.search_vector @@ websearch_to_tsquery('simple', ${f.search})`;
      const assetIds = f.searchAssetIds ?? [];
      q = q.where((eb) => (assetIds.length ? eb.or([words, eb('f.asset_id', 'in', assetIds)]) : words));
    }
    if (f.ids?.length) q = q.where('f.id', 'in', f.ids);
    if (f.scopeName !== undefined) q = q.where('f.scope_name', '=', f.scopeName);
    if (f.scopeNames?.length) q = q.where('f.scope_name', 'in', f.scopeNames);
    if (f.scanGroupId) q = q.where(inScanGroup(f.scanGroupId));
    if (f.importId) {
      const change =
        f.importChange === 'New'
          ? sql`e.kind = 'created'`
          : f.importChange
            ? sql`e.kind = 'state_changed' and e.to_state = ${f.importChange}`
            : sql`true`;
      q = q.where(
        sql<boolean>`f.id in (select e.finding_id from finding_events e where e.organization_id = f.organization_id
          and e.details->>'importId' = ${f.importId} and ${change})`,
      );
    }
    return q;
  }

  listPage(
    organizationId: string,
    filter: FindingFilter,
    sort: FindingSort,
    limit: number,
    after?: { value: string; id: string },
  ): Promise<FindingPageItem[]> {
    const spec = FINDING_SORTS[sort];
    let q = this.filtered(
      this.base(organizationId).select([...FINDING_COLUMNS, sql<string>`${spec.expr}::text`.as('sortValue')]),
      filter,
    );
    if (after) {
      const op = spec.desc ? sql`<` : sql`>`;
      q = q.where(
        sql<boolean>`(${spec.expr}, f.id) ${op} (cast(${after.value} as ${sql.raw(spec.cast)}), ${after.id}::uuid)`,
      );
    }
    const direction = spec.desc ? sql`desc` : sql`asc`;
    return q.orderBy(sql`${spec.expr} ${direction}`).orderBy(sql`f.id ${direction}`).limit(limit).execute();
  }

  /**
   * Every matching finding in sort order, read in chunks, with only the exported columns and
   * already as text (exports).
   */
  stream(
    organizationId: string,
    filter: FindingFilter,
    sort: FindingSort,
  ): AsyncIterableIterator<FindingExport> {
    const spec = FINDING_SORTS[sort];
    const direction = spec.desc ? sql`desc` : sql`asc`;
    return this.filtered(
      this.base(organizationId).select([
        'f.id',
        'a.name as assetName',
        'f.asset_id as assetId',
        'f.title',
        sql<string>`array_to_string(v.cve_ids, ' ')`.as('cves'),
        'f.effective_severity as effectiveSeverity',
        'f.state',
        'f.risk_score as riskScore',
        isoText('f.due_at').as('dueAt'),
        'v.kev',
        'f.port',
        'f.protocol',
        'f.url',
        'f.package_name as packageName',
        'f.package_version as packageVersion',
        'f.source',
        isoText('f.first_seen_at').as('firstSeenAt'),
        isoText(LAST_SEEN).as('lastSeenAt'),
      ]),
      filter,
    )
      .orderBy(sql`${spec.expr} ${direction}`)
      .orderBy(sql`f.id ${direction}`)
      .stream(5000);
  }

  /**
   * Every matching finding for a technical report, grouped by asset (by name) or by vulnerability
   * (by title), riskiest first within a group, read through a cursor in chunks of 1000.
   */
  reportStream(
    organizationId: string,
    filter: FindingFilter,
    groupBy: FindingReportGrouping,
  ): AsyncIterableIterator<FindingReportRow> {
    const q = this.filtered(
      this.base(organizationId).select([
        'f.id',
        'f.asset_id as assetId',
        'a.name as assetName',
        'f.vulnerability_id as vulnerabilityId',
        'f.title',
        sql<string>`array_to_string(v.cve_ids, ' ')`.as('cves'),
        'f.effective_severity as effectiveSeverity',
        'f.state',
        'f.risk_score as riskScore',
        'v.kev',
        'f.location_kind as locationKind',
        'f.port',
        'f.protocol',
        'f.url',
        'f.file_path as filePath',
        'f.package_name as packageName',
        'f.package_version as packageVersion',
        isoText('f.first_seen_at').as('firstSeenAt'),
        isoText('f.due_at').as('dueAt'),
        'v.solution',
      ]),
      filter,
    );
    const grouped =
      groupBy === 'Asset'
        ? q.orderBy('a.name').orderBy('f.asset_id')
        : q.orderBy('f.title').orderBy('f.vulnerability_id');
    return grouped
      .orderBy('f.risk_score', 'desc')
      .orderBy('f.id')
      .stream(1000) as AsyncIterableIterator<FindingReportRow>;
  }

  /**
   * The figures of the matching findings (the caller's filter says which states count as open):
   * counts by severity, KEV, due dates against `now`, risk, and the ten riskiest assets and
   * vulnerabilities. Three aggregate statements, whatever the number of findings.
   */
  async figures(
    organizationId: string,
    filter: FindingFilter,
    now: Date,
    soonDays: number,
    fixedSince: Date,
  ): Promise<FindingFigures> {
    const soon = new Date(now.getTime() + soonDays * 86_400_000);
    const counts = await this.filtered(
      this.base(organizationId).select([
        'f.effective_severity as severity',
        sql<string>`count(*)`.as('n'),
        sql<string>`count(*) filter (where v.kev)`.as('kev'),
        sql<string>`count(*) filter (where f.due_at is not null)`.as('withDue'),
        sql<string>`count(*) filter (where f.due_at < ${now})`.as('pastDue'),
        sql<string>`count(*) filter (where f.due_at >= ${now} and f.due_at < ${soon})`.as('dueSoon'),
        sql<string>`coalesce(sum(f.risk_score), 0)`.as('risk'),
      ]),
      filter,
    )
      .groupBy('f.effective_severity')
      .execute();
    const figures: FindingFigures = {
      openBySeverity: { Critical: 0, High: 0, Medium: 0, Low: 0, Info: 0 },
      kevOpen: 0,
      withDueDate: 0,
      pastDue: 0,
      dueSoon: 0,
      riskExposure: 0,
      fixedWithDueDate: 0,
      fixedWithinSla: 0,
      riskiestAssets: [],
      riskiestVulnerabilities: [],
    };
    const fixed = await this.filtered(
      this.base(organizationId).select([
        sql<string>`count(*) filter (where f.due_at is not null)`.as('withDue'),
        sql<string>`count(*) filter (where f.fixed_at <= f.due_at)`.as('within'),
      ]),
      { ...filter, states: ['Fixed'] },
    )
      .where('f.fixed_at', '>=', fixedSince)
      .executeTakeFirstOrThrow();
    figures.fixedWithDueDate = Number(fixed.withDue);
    figures.fixedWithinSla = Number(fixed.within);
    for (const c of counts) {
      figures.openBySeverity[c.severity] = Number(c.n);
      figures.kevOpen += Number(c.kev);
      figures.withDueDate += Number(c.withDue);
      figures.pastDue += Number(c.pastDue);
      figures.dueSoon += Number(c.dueSoon);
      figures.riskExposure += Number(c.risk);
    }
    figures.riskExposure = Math.round(figures.riskExposure * 100) / 100;
    const ranking = (row: {
      id: string;
      name: string;
      cves: string | null;
      n: string;
      risk: string;
      rank: number;
    }): FindingRanking => ({
      id: row.id,
      name: row.name,
      cves: row.cves ?? '',
      openFindings: Number(row.n),
      risk: Number(row.risk),
      maxSeverity: SEVERITY_OF_RANK[row.rank] ?? 'Info',
    });
    const assets = await this.filtered(
      this.base(organizationId).select([
        'f.asset_id as id',
        sql<string>`min(a.name)`.as('name'),
        sql<string | null>`null`.as('cves'),
        sql<string>`count(*)`.as('n'),
        sql<string>`sum(f.risk_score)`.as('risk'),
        sql<number>`max(f.severity_rank)`.as('rank'),
      ]),
      filter,
    )
      .groupBy('f.asset_id')
      .orderBy(sql`sum(f.risk_score)`, 'desc')
      .orderBy('f.asset_id')
      .limit(10)
      .execute();
    const vulnerabilities = await this.filtered(
      this.base(organizationId).select([
        'f.vulnerability_id as id',
        sql<string>`min(f.title)`.as('name'),
        sql<string>`min(array_to_string(v.cve_ids, ' '))`.as('cves'),
        sql<string>`count(*)`.as('n'),
        sql<string>`sum(f.risk_score)`.as('risk'),
        sql<number>`max(f.severity_rank)`.as('rank'),
      ]),
      filter,
    )
      .groupBy('f.vulnerability_id')
      .orderBy(sql`sum(f.risk_score)`, 'desc')
      .orderBy('f.vulnerability_id')
      .limit(10)
      .execute();
    figures.riskiestAssets = assets.map(ranking);
    figures.riskiestVulnerabilities = vulnerabilities.map(ranking);
    return figures;
  }

  /** Offset paging by risk, for the original service's withStartIndex/andPageSize calls. */
  listOffset(
    organizationId: string,
    filter: FindingFilter,
    offset: number,
    limit: number,
  ): Promise<FindingSummary[]> {
    return this.filtered(this.base(organizationId).select(FINDING_COLUMNS), filter)
      .orderBy('f.risk_score', 'desc')
      .orderBy('f.id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
  }

  /** How many match, counting no further than `cap + 1` rows (cheap however large the match). */
  async countUpTo(organizationId: string, filter: FindingFilter, cap: number): Promise<number> {
    const matches = this.filtered(this.base(organizationId).select(sql<number>`1`.as('one')), filter).limit(
      cap + 1,
    );
    const row = await this.db
      .selectFrom(matches.as('m'))
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async count(organizationId: string, filter: FindingFilter): Promise<number> {
    const row = await this.filtered(
      this.base(organizationId).select((eb) => eb.fn.countAll<string>().as('n')),
      filter,
    ).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Moves every finding that matches the filter and may make the move (its state is one of
   * `fromStates`) to a new state, recording an event for each: one statement.
   */
  async bulkSetState(
    organizationId: string,
    filter: FindingFilter,
    fromStates: readonly FindingState[],
    change: {
      state: FindingState;
      reason: string | null;
      until: Date | null;
      now: Date;
      actorType: string;
      actorId: string | null;
      /** Recorded in each history row's details, so that the change's events are found by it. */
      changeId?: string;
    },
    db: Db,
  ): Promise<{ matched: number; changed: number }> {
    const ids = this.filtered(this.base(organizationId, db).select('f.id'), filter);
    const matched = Number(
      (
        await this.filtered(
          this.base(organizationId, db).select((eb) => eb.fn.countAll<string>().as('n')),
          filter,
        ).executeTakeFirstOrThrow()
      ).n,
    );
    const fixedAt =
      change.state === 'Fixed'
        ? sql`${change.now}::timestamptz`
        : change.state === 'Reopened'
          ? sql`null`
          : sql`findings.fixed_at`;
    const result = await sql<{ n: string }>`
      with target as (
        select id, state from findings
        where organization_id = ${organizationId} and id in (${ids}) and state in (${sql.join([...fromStates])})
        for update
      ), moved as (
        update findings set state = ${change.state}, state_reason = ${change.reason}, risk_accepted_until = ${change.until},
          fixed_at = ${fixedAt}, updated_at = ${change.now}::timestamptz
        from target where findings.organization_id = ${organizationId} and findings.id = target.id
        returning findings.id, target.state as from_state
      ), logged as (
        insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, actor_id, kind, from_state, to_state, reason, details)
        select ${organizationId}, rampart_uuidv7(), moved.id, ${change.now}, ${change.actorType}, ${change.actorId},
          'state_changed', moved.from_state, ${change.state}, ${change.reason}, ${JSON.stringify({ bulk: true, ...(change.changeId ? { change: change.changeId } : {}) })}::jsonb
        from moved
        returning finding_id
      )
      select count(*) as n from logged`.execute(db);
    return { matched, changed: Number(result.rows[0]?.n ?? 0) };
  }

  /** Which of these findings exist in the organisation (the others are foreign or gone). */
  async existingIds(organizationId: string, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('findings')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => r.id);
  }

  /** The ids of the findings that match, at most `limit` (bulk linking). */
  async matchingIds(organizationId: string, filter: FindingFilter, limit: number): Promise<string[]> {
    const rows = await this.filtered(this.base(organizationId).select('f.id'), filter)
      .orderBy('f.id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Risk acceptances whose time is up go back to Open, in every organisation. */
  expireRiskAcceptances(now: Date, db: Db): Promise<{ organizationId: string; id: string }[]> {
    return db
      .updateTable('findings')
      .set({ state: 'Open', state_reason: null, risk_accepted_until: null, updated_at: now })
      .where('state', '=', 'RiskAccepted')
      .where('risk_accepted_until', '<=', now)
      .returning(['organization_id as organizationId', 'id'])
      .execute();
  }
}

/** Which findings to re-score. */
export type RescoreScope = { findingIds: string[] } | { vulnerabilityIds: string[] } | { assetId: string };

/** SLA days per severity and for a vulnerability in KEV (null: no due date of that kind). */
export type SlaDaysSql = Record<Severity | 'Kev', number | null>;

/**
 * The risk score of finding `f` of vulnerability `v` on asset `a`, in SQL (imports compute it
 * inside their set-based merge with the same expression).
 */
export function riskScoreSql(f: string, v: string, a: string) {
  const col = (t: string, c: string) => sql.ref(`${t}.${c}`);
  // An Unconfirmed finding counts for no risk (migration 0024_b).
  return sql<string>`case when ${col(f, 'confidence')} = 'Unconfirmed' then 0 else rampart_risk_score(
    case when ${col(f, 'severity_override')} is null
      then ${rankingCvssScore(v)} end,
    coalesce(${col(f, 'severity_override')}, ${col(f, 'severity')}), ${col(v, 'epss_percentile')}, ${col(v, 'kev')},
    ${col(a, 'criticality')}, ${col(a, 'internet_facing')}) end`;
}

/** The due date of finding `f` of vulnerability `v`: its severity's SLA from first sight, or KEV's when sooner. */
export function dueAtSql(f: string, v: string, sla: SlaDaysSql) {
  const col = (t: string, c: string) => sql.ref(`${t}.${c}`);
  // An Unconfirmed finding has no due date: no SLA runs on what is not confirmed.
  return sql<Date>`case when ${col(f, 'confidence')} = 'Unconfirmed' then null else rampart_due_at(
    coalesce(${col(f, 'severity_override')}, ${col(f, 'severity')}),
    ${col(f, 'first_seen_at')}, ${col(v, 'kev')}, ${sla.Critical}::int, ${sla.High}::int,
    ${sla.Medium}::int, ${sla.Low}::int, ${sla.Info}::int, ${sla.Kev}::int) end`;
}
