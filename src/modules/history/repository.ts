import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type {
  DB,
  FindingHistoryBuildsTable,
  FindingHistoryTable,
  HistoryScopeKind,
} from '../../db/schema.js';
import { historyAssets } from '../assets/queries.js';
import { findingStateChanges, historyFindings } from '../findings/queries.js';
import { systemScanGroupScopes } from '../systemscans/queries.js';
import { joinableVulnerabilities } from '../vulnerabilities/queries.js';
import { webScanGroupScopes } from '../webscans/queries.js';

export type HistoryRow = Selectable<FindingHistoryTable>;
export type HistoryBuildRow = Selectable<FindingHistoryBuildsTable>;

/** What one computation of days needs: the organisation's days and the rules of the figures. */
export interface DaysToCompute {
  organizationId: string;
  timeZone: string;
  /** First and last day, YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  /** MTTR counts the fixes of this many days up to and including each day. */
  mttrWindowDays: number;
  now: Date;
}

const SEVERITY_COLUMNS = [
  ['Critical', 'critical'],
  ['High', 'high'],
  ['Medium', 'medium'],
  ['Low', 'low'],
  ['Info', 'info'],
] as const;

const STATE_COLUMNS = [
  ['Open', 'state_open'],
  ['Reopened', 'state_reopened'],
  ['RiskAccepted', 'state_risk_accepted'],
  ['FalsePositive', 'state_false_positive'],
  ['Fixed', 'state_fixed'],
] as const;

const raw = (text: string) => sql.raw(text);

/**
 * The history's SQL. A day's figures are computed for a span of days in one statement, set-based:
 *
 * - each finding's state at the start of the span is its state now, unless it changed since: then
 *   it is the state before its first change at or after the start (finding_events' from_state);
 * - the changes within the span cut each finding into segments of whole days [d0, d1) in which
 *   its state at the end of the day stays the same;
 * - a segment adds +1 at d0 and −1 at d1 to its state's count (and to its severity's, its risk to
 *   the exposure, …); past-SLA and due-soon are the parts of open segments after (or in the
 *   7 days before) the due day; a running sum over the days gives each day's figures.
 *
 * The work is that of reading the findings once and the events of the span, whatever its length:
 * a day costs what a year costs, apart from the rows written.
 */
export class HistoryRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Replaces the organisation's days from..to (every scope) with freshly computed ones. */
  async computeDays(q: DaysToCompute): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      // One computation of an organisation's history at a time (the daily job and a rebuild).
      await sql`select pg_advisory_xact_lock(hashtextextended(${`finding-history:${q.organizationId}`}, 0))`.execute(
        trx,
      );
      await trx
        .deleteFrom('finding_history')
        .where('organization_id', '=', q.organizationId)
        .where('day', '>=', q.from)
        .where('day', '<=', q.to)
        .execute();
      const result = await this.insertDays(trx, q);
      return Number(result.numAffectedRows ?? 0);
    });
  }

  private insertDays(trx: Transaction<DB>, q: DaysToCompute) {
    const org = sql`${q.organizationId}::uuid`;
    const tz = sql`${q.timeZone}::text`;
    const from = sql`${q.from}::date`;
    const to = sql`${q.to}::date`;
    const local = (column: string) => sql`(${sql.ref(column)} at time zone ${tz})::date`;
    const open = sql`d.state in ('Open', 'Reopened')`;
    const openBySeverity = SEVERITY_COLUMNS.map(
      ([severity, c]) =>
        sql`coalesce(sum(d.sign) filter (where d.measure = 'state' and ${open} and d.sev = ${severity}), 0) as ${raw(`open_${c}`)}`,
    );
    const byState = STATE_COLUMNS.map(
      ([state, c]) =>
        sql`coalesce(sum(d.sign) filter (where d.measure = 'state' and d.state = ${state}), 0) as ${raw(c)}`,
    );
    const running = (c: string) => sql`sum(coalesce(sd.${raw(c)}, 0)) over w as ${raw(c)}`;
    const mttrPivot = SEVERITY_COLUMNS.flatMap(([severity, c]) => [
      sql`max(m.mean) filter (where m.sev = ${severity}) as ${raw(`mttr_${c}_mean`)}`,
      sql`max(m.median) filter (where m.sev = ${severity}) as ${raw(`mttr_${c}_median`)}`,
      sql`coalesce(max(m.n) filter (where m.sev = ${severity}), 0) as ${raw(`mttr_${c}_count`)}`,
    ]);
    const mttrColumns = SEVERITY_COLUMNS.flatMap(([, c]) => [
      `mttr_${c}_mean`,
      `mttr_${c}_median`,
      `mttr_${c}_count`,
    ]);
    const counted = [
      ...SEVERITY_COLUMNS.map(([, c]) => `open_${c}`),
      ...STATE_COLUMNS.map(([, c]) => c),
      'past_sla',
      'due_soon',
      'risk_exposure',
      'kev_open',
    ];
    return sql`
      with b as (
        select (${from}::timestamp at time zone ${tz}) as range_start,
          ((${to} + 1)::timestamp at time zone ${tz}) as range_end,
          ((${from} - ${q.mttrWindowDays - 1}::int)::timestamp at time zone ${tz}) as fix_start
      ),
      days as (
        select g::date as day from generate_series(${from}, ${to}, interval '1 day') as g
      ),
      fnd as materialized (
        select f.id, f.asset_id, f.effective_severity as sev, f.state, f.risk_score::numeric as risk,
          ${local('f.due_at')} as due_day, f.first_seen_at, f.scope_name, coalesce(v.kev, false) as kev
        from ${historyFindings('f')}
        cross join b
        left join ${joinableVulnerabilities('v')} on v.organization_id = f.organization_id and v.id = f.vulnerability_id
        where f.organization_id = ${org} and f.confidence = 'Confirmed' and f.first_seen_at < b.range_end
      ),
      ev as materialized (
        select e.id, e.finding_id, e.occurred_at, e.kind, e.from_state, e.to_state
        from ${findingStateChanges('e')}
        cross join b
        where e.organization_id = ${org} and e.occurred_at >= b.range_start
      ),
      later as (
        select distinct on (e.finding_id) e.finding_id, e.kind, e.from_state
        from ev e order by e.finding_id, e.occurred_at, e.id
      ),
      inrange as materialized (
        select e.id, e.finding_id, e.occurred_at, e.kind, e.to_state, ${local('e.occurred_at')} as day
        from ev e cross join b where e.occurred_at < b.range_end
      ),
      touched as (select distinct finding_id from inrange),
      start_state as (
        select f.id,
          case when l.finding_id is null then case when f.first_seen_at < b.range_start then f.state end
            when l.kind = 'created' then null
            else l.from_state end as state,
          (l.finding_id is null and f.first_seen_at >= b.range_start) as unrecorded
        from fnd f cross join b left join later l on l.finding_id = f.id
      ),
      segs as (
        select s.id, ${from} as d0, ${to} + 1 as d1, s.state
        from start_state s
        where s.state is not null and not exists (select 1 from touched t where t.finding_id = s.id)
        union all
        select f.id, ${local('f.first_seen_at')}, ${to} + 1, f.state
        from start_state s join fnd f on f.id = s.id where s.unrecorded
        union all
        select p.id, p.day, coalesce(lead(p.day) over (partition by p.id order by p.at, p.eid), ${to} + 1), p.state
        from (
          select s.id, ${from} as day, '-infinity'::timestamptz as at, null::uuid as eid, s.state
          from start_state s join touched t on t.finding_id = s.id where s.state is not null
          union all
          select e.finding_id, e.day, e.occurred_at, e.id, e.to_state from inrange e where e.to_state is not null
        ) as p
      ),
      seg as (
        select s.id, s.d0, s.d1, s.state, f.sev, f.risk, f.kev, f.due_day,
          s.state in ('Open', 'Reopened') as open
        from segs s join fnd f on f.id = s.id
        where s.d0 < s.d1
      ),
      groupscopes as (
        select g.scope_name, g.group_id::text as group_key from ${systemScanGroupScopes('g')} where g.organization_id = ${org}
        union all
        select w.scope_name, w.group_id::text from ${webScanGroupScopes('w')} where w.organization_id = ${org}
      ),
      ast as materialized (
        select a.id, a.tags, ${local('a.first_seen_at')} as fd, ${local('a.last_seen_at')} as ld
        from ${historyAssets('a')} cross join b
        where a.organization_id = ${org} and a.first_seen_at < b.range_end
      ),
      fscope as materialized (
        select f.id, 'Organization'::text as kind, ''::text as key from fnd f
        union all
        select f.id, 'Tag', t.tag from fnd f join ast a on a.id = f.asset_id
          cross join lateral (select distinct u.tag from unnest(a.tags) as u(tag)) as t
        union all
        select f.id, 'ScanGroup', g.group_key from fnd f join groupscopes g on g.scope_name = f.scope_name
      ),
      ascope as (
        select a.id, 'Organization'::text as kind, ''::text as key from ast a
        union all
        select a.id, 'Tag', t.tag from ast a cross join lateral (select distinct u.tag from unnest(a.tags) as u(tag)) as t
        union all
        select distinct f.asset_id, 'ScanGroup', g.group_key from fnd f join groupscopes g on g.scope_name = f.scope_name
      ),
      d as (
        select s.id, x.day, x.sign, x.measure, s.state, s.sev, s.risk, s.kev
        from seg s
        cross join lateral (values
          (s.d0, 1, 'state'), (s.d1, -1, 'state'),
          (greatest(s.d0, s.due_day), 1, 'past'), (s.d1, -1, 'past'),
          (greatest(s.d0, s.due_day - 7), 1, 'soon'), (least(s.d1, s.due_day), -1, 'soon')
        ) as x(day, sign, measure)
        where x.day <= ${to} and (x.measure = 'state' or (s.open and s.due_day is not null and
          case x.measure when 'past' then greatest(s.d0, s.due_day) < s.d1
            else greatest(s.d0, s.due_day - 7) < least(s.d1, s.due_day) end))
      ),
      sd as (
        select fs.kind, fs.key, d.day,
          ${sql.join(openBySeverity)},
          ${sql.join(byState)},
          coalesce(sum(d.sign) filter (where d.measure = 'past'), 0) as past_sla,
          coalesce(sum(d.sign) filter (where d.measure = 'soon'), 0) as due_soon,
          coalesce(sum(d.sign * d.risk) filter (where d.measure = 'state' and ${open}), 0) as risk_exposure,
          coalesce(sum(d.sign) filter (where d.measure = 'state' and ${open} and d.kev), 0) as kev_open
        from d join fscope fs on fs.id = d.id
        group by fs.kind, fs.key, d.day
      ),
      fl as (
        select fs.kind, fs.key, e.day,
          count(distinct e.finding_id) filter (where e.kind = 'created') as new_count,
          count(distinct e.finding_id) filter (where e.kind = 'state_changed' and e.to_state = 'Fixed') as fixed_count,
          count(distinct e.finding_id) filter (where e.kind = 'state_changed' and e.to_state = 'Reopened') as reopened_count
        from inrange e join fscope fs on fs.id = e.finding_id
        group by fs.kind, fs.key, e.day
      ),
      fixes as (
        select x.finding_id, ${local('x.occurred_at')} as day, f.sev,
          greatest(extract(epoch from x.occurred_at - f.first_seen_at), 0) / 86400.0 as took
        from ${findingStateChanges('x')}
        cross join b
        join fnd f on f.id = x.finding_id
        where x.organization_id = ${org} and x.kind = 'state_changed' and x.to_state = 'Fixed'
          and x.occurred_at >= b.fix_start and x.occurred_at < b.range_end
      ),
      m as (
        select fs.kind, fs.key, dd.day, x.sev, avg(x.took) as mean,
          percentile_cont(0.5) within group (order by x.took) as median, count(*) as n
        from fixes x
        join fscope fs on fs.id = x.finding_id
        join days dd on x.day between dd.day - ${q.mttrWindowDays - 1}::int and dd.day
        group by fs.kind, fs.key, dd.day, x.sev
      ),
      mp as (
        select m.kind, m.key, m.day, ${sql.join(mttrPivot)}
        from m group by m.kind, m.key, m.day
      ),
      sa as (
        select s.kind, s.key, x.day, sum(x.sign) as assets_seen
        from ast a
        join ascope s on s.id = a.id
        cross join lateral (values (greatest(a.fd, ${from}), 1), (a.ld + 30, -1)) as x(day, sign)
        where greatest(a.fd, ${from}) < a.ld + 30 and x.day <= ${to}
        group by s.kind, s.key, x.day
      ),
      scanned as (
        select a.id, a.ld as day from ast a where a.ld between ${from} and ${to}
        union
        select f.asset_id, e.day from inrange e join fnd f on f.id = e.finding_id
      ),
      sc as (
        select s.kind, s.key, x.day, count(distinct x.id) as assets_scanned
        from scanned x join ascope s on s.id = x.id
        group by s.kind, s.key, x.day
      ),
      scopes as (
        select kind, key from fscope union select kind, key from ascope
      ),
      grid as (
        select s.kind, s.key, dd.day from scopes s cross join days dd
      ),
      result as (
        select g.kind, g.key, g.day,
          ${sql.join(counted.map(running))},
          coalesce(fl.new_count, 0) as new_count,
          coalesce(fl.fixed_count, 0) as fixed_count,
          coalesce(fl.reopened_count, 0) as reopened_count,
          sum(coalesce(sa.assets_seen, 0)) over w as assets_seen,
          coalesce(sc.assets_scanned, 0) as assets_scanned,
          ${sql.join(mttrColumns.map((c) => (c.endsWith('_count') ? sql`coalesce(mp.${raw(c)}, 0) as ${raw(c)}` : sql`mp.${raw(c)}`)))}
        from grid g
        left join sd on sd.kind = g.kind and sd.key = g.key and sd.day = g.day
        left join fl on fl.kind = g.kind and fl.key = g.key and fl.day = g.day
        left join sa on sa.kind = g.kind and sa.key = g.key and sa.day = g.day
        left join sc on sc.kind = g.kind and sc.key = g.key and sc.day = g.day
        left join mp on mp.kind = g.kind and mp.key = g.key and mp.day = g.day
        window w as (partition by g.kind, g.key order by g.day)
      )
      insert into finding_history (organization_id, scope_kind, scope_key, day,
        ${raw(counted.join(', '))}, new_count, fixed_count, reopened_count, assets_seen, assets_scanned,
        ${raw(mttrColumns.join(', '))}, computed_at)
      select ${org}, kind, key, day, ${raw(counted.join(', '))}, new_count, fixed_count, reopened_count,
        assets_seen, assets_scanned, ${raw(mttrColumns.join(', '))}, ${q.now}::timestamptz
      from result`.execute(trx);
  }

  /** The days of one scope from..to, in order. */
  days(
    organizationId: string,
    kind: HistoryScopeKind,
    key: string,
    from: string,
    to: string,
  ): Promise<HistoryRow[]> {
    return this.db
      .selectFrom('finding_history')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('scope_kind', '=', kind)
      .where('scope_key', '=', key)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day')
      .execute();
  }

  /** When the organisation's first (confirmed) finding was first seen; undefined without findings. */
  async firstFindingAt(organizationId: string): Promise<Date | undefined> {
    const row = await sql<{ first: Date | null }>`
      select min(f.first_seen_at) as first from ${historyFindings('f')}
      where f.organization_id = ${organizationId}::uuid and f.confidence = 'Confirmed'`.execute(this.db);
    return row.rows[0]?.first ?? undefined;
  }

  /** The last day computed for the organisation's whole scope, if any. */
  async lastDay(organizationId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('finding_history')
      .select((eb) => eb.fn.max('day').as('last'))
      .where('organization_id', '=', organizationId)
      .where('scope_kind', '=', 'Organization')
      .executeTakeFirst();
    return (row?.last as string | null | undefined) ?? undefined;
  }

  build(organizationId: string): Promise<HistoryBuildRow | undefined> {
    return this.db
      .selectFrom('finding_history_builds')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  /** Makes or changes the organisation's build record. */
  async saveBuild(
    organizationId: string,
    values: Omit<Partial<HistoryBuildRow>, 'organization_id'> & { updated_at: Date },
  ): Promise<void> {
    await this.db
      .insertInto('finding_history_builds')
      .values({
        organization_id: organizationId,
        ...values,
        version: values.version ?? 0,
        state: values.state ?? 'Queued',
        days_done: values.days_done ?? 0,
        days_total: values.days_total ?? 0,
      })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet(values))
      .execute();
  }

  /** Removes the organisation's days outside first..last (a rebuild that starts later than before). */
  async removeOutside(organizationId: string, first: string, last: string): Promise<void> {
    await this.db
      .deleteFrom('finding_history')
      .where('organization_id', '=', organizationId)
      .where((eb) => eb.or([eb('day', '<', first), eb('day', '>', last)]))
      .execute();
  }
}
