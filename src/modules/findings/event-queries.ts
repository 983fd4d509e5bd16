import { type RawBuilder, sql } from 'kysely';
import { joinableAssets } from '../assets/queries.js';
import { alreadyPublished } from '../events/queries.js';
import type { EventRowsQuery } from '../events/types.js';
import { joinableSystemScans } from '../systemscans/queries.js';
import { joinableVulnerabilities } from '../vulnerabilities/queries.js';
import { joinableWebScans } from '../webscans/queries.js';

// The rows of the findings' events, set-based: each query yields one outbox row per finding
// (organization_id, subject, data, facets, mark_key), built in SQL from the finding as it is
// after the change, its asset and its vulnerability, so that an import's merge publishes its
// events with one INSERT … SELECT per type however many findings it changed. The payloads are
// those of the events catalogue (src/modules/events/catalogue.ts); the events tests check them.

/** One change of a finding: what finding_events records, as a relation. */
export interface FindingChange {
  organization_id: string;
  finding_id: string;
  /** The finding_events row, when the change comes from there: it names a reopening. */
  event_id: string | null;
  from_state: string | null;
  to_state: string;
  reason: string | null;
  actor_type: string;
  actor_id: string | null;
}

export type FindingChangeType =
  | 'finding.created'
  | 'finding.state_changed'
  | 'finding.reopened'
  | 'finding.kev_found';

const iso = (value: RawBuilder<unknown>) =>
  sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The Finding of a payload: finding `f`, asset `a`, vulnerability `v`. */
const findingRef = sql`jsonb_build_object(
  'Id', f.id, 'Title', f.title, 'Severity', f.effective_severity, 'State', f.state,
  'RiskScore', f.risk_score::float8, 'Kev', v.kev, 'DueAt', ${iso(sql`f.due_at`)},
  'Asset', jsonb_build_object('Id', a.id, 'Name', a.name),
  'Vulnerability', jsonb_build_object('Id', v.id, 'Key', v.key))`;

/**
 * The scan group of the system or web scan whose scope finding `f` is in (`system-scan:<id>`,
 * `web-scan:<id>`), as a JSON array: empty for a finding of an import or of a scan in no group.
 */
const scanGroupIds = sql`coalesce((
  select jsonb_agg(g.scan_group_id) from (
    select s.scan_group_id from ${joinableSystemScans('s')}
    where s.organization_id = f.organization_id and s.scan_group_id is not null
      and s.id = case when f.scope_name ~ '^system-scan:[0-9a-f-]{36}$' then substring(f.scope_name from 13)::uuid end
    union
    select w.scan_group_id from ${joinableWebScans('w')}
    where w.organization_id = f.organization_id and w.scan_group_id is not null
      and w.id = case when f.scope_name ~ '^web-scan:[0-9a-f-]{36}$' then substring(f.scope_name from 10)::uuid end
  ) g), '[]'::jsonb)`;

/** What notification rules filter a finding's event on. */
const findingFacets = sql`jsonb_build_object(
  'severity', f.effective_severity, 'kev', v.kev, 'riskScore', f.risk_score::float8,
  'tags', to_jsonb(a.tags), 'assetIds', jsonb_build_array(f.asset_id), 'scanGroupIds', ${scanGroupIds})`;

/** The finding `f` of each row, with its asset `a` and vulnerability `v`. */
const joined = (from: RawBuilder<unknown>) => sql`${from}
  join findings f on f.organization_id = c.organization_id and f.id = c.finding_id
  join ${joinableAssets('a')} on a.organization_id = f.organization_id and a.id = f.asset_id
  join ${joinableVulnerabilities('v')} on v.organization_id = f.organization_id and v.id = f.vulnerability_id`;

const actorOf = sql`jsonb_build_object('Type', c.actor_type, 'Id', c.actor_id)`;

/**
 * The events of `type` for these changes: created for each creation, state_changed for each
 * move, reopened for each move to Reopened, kev_found for each creation or reopening of a
 * finding open on a KEV vulnerability (once per occurrence: its mark key names it).
 */
export function findingChangeRows(
  type: FindingChangeType,
  changes: RawBuilder<FindingChange>,
): RawBuilder<EventRowsQuery> {
  const from = joined(sql`(${changes}) c`);
  const subject = sql`'findings/' || f.id`;
  switch (type) {
    case 'finding.created':
      return sql<EventRowsQuery>`select c.organization_id, ${subject} as subject,
          jsonb_build_object('Finding', ${findingRef}) as data, ${findingFacets} as facets
        from ${from} where c.from_state is null`;
    case 'finding.state_changed':
      return sql<EventRowsQuery>`select c.organization_id, ${subject} as subject,
          jsonb_build_object('Finding', ${findingRef}, 'FromState', c.from_state, 'ToState', c.to_state,
            'Reason', c.reason, 'Actor', ${actorOf}) as data, ${findingFacets} as facets
        from ${from} where c.from_state is not null and c.from_state is distinct from c.to_state`;
    case 'finding.reopened':
      return sql<EventRowsQuery>`select c.organization_id, ${subject} as subject,
          jsonb_build_object('Finding', ${findingRef}, 'FromState', c.from_state, 'Actor', ${actorOf}) as data,
          ${findingFacets} as facets
        from ${from} where c.to_state = 'Reopened' and c.from_state is distinct from 'Reopened'`;
    case 'finding.kev_found':
      return sql<EventRowsQuery>`select c.organization_id, ${subject} as subject,
          jsonb_build_object('Finding', ${findingRef}) as data, ${findingFacets} as facets,
          ${kevMark(sql`f.id`, sql`case when c.from_state is null then null else c.event_id end`)} as mark_key
        from ${from}
        where v.kev and f.state in ('Open', 'Reopened')
          and (c.from_state is null or (c.to_state = 'Reopened' and c.from_state is distinct from 'Reopened'))`;
  }
}

/**
 * The mark of a KEV announcement: a finding's first (`finding.kev_found:<id>`), or the one of a
 * reopening (`…:<finding_events id>`), so that a finding reopened on a KEV vulnerability is
 * announced again, and the periodic look announces a finding only when nothing did before.
 */
const kevMark = (findingId: RawBuilder<unknown>, occurrence: RawBuilder<unknown>) =>
  sql`'finding.kev_found:' || ${findingId} || coalesce(':' || ${occurrence}, '')`;

/** The changes an import's merge recorded in finding_events (indexed by import). */
export function changesOfImport(organizationId: string, importId: string): RawBuilder<FindingChange> {
  return changesWhere(
    sql`e.organization_id = ${organizationId}::uuid and e.details->>'importId' = ${importId}::text`,
  );
}

/** The changes recorded under one change id (a bulk change; indexed, see migration 0030_b). */
export function changesOfChange(organizationId: string, changeId: string): RawBuilder<FindingChange> {
  return changesWhere(
    sql`e.organization_id = ${organizationId}::uuid and e.details ? 'change' and e.details->>'change' = ${changeId}::text`,
  );
}

function changesWhere(where: RawBuilder<boolean>): RawBuilder<FindingChange> {
  return sql<FindingChange>`select e.organization_id, e.finding_id, e.id as event_id, e.from_state,
      e.to_state, e.reason, e.actor_type, e.actor_id
    from finding_events e where ${where} and e.kind in ('created', 'state_changed')`;
}

/** Changes given by the caller (a finding or a few), as a relation. */
export function changesOf(
  rows: readonly {
    organizationId: string;
    findingId: string;
    fromState: string | null;
    toState: string;
    reason: string | null;
    actorType: string;
    actorId: string | null;
  }[],
): RawBuilder<FindingChange> {
  const json = JSON.stringify(
    rows.map((r) => ({
      organization_id: r.organizationId,
      finding_id: r.findingId,
      from_state: r.fromState,
      to_state: r.toState,
      reason: r.reason,
      actor_type: r.actorType,
      actor_id: r.actorId,
    })),
  );
  return sql<FindingChange>`select r.organization_id, r.finding_id, null::uuid as event_id, r.from_state, r.to_state,
      r.reason, r.actor_type, r.actor_id
    from jsonb_to_recordset(${json}::jsonb) as r(organization_id uuid, finding_id uuid, from_state text,
      to_state text, reason text, actor_type text, actor_id uuid)`;
}

export type FindingWatchType =
  | 'finding.sla_breached'
  | 'finding.sla_due_soon'
  | 'risk_acceptance.expiring'
  | 'finding.kev_found';

/**
 * What the periodic watch announces, in every organisation, once per occurrence (its mark key):
 * open findings past their due date (due within the last `breachWindowDays`: older breaches
 * before the watch began are not announced all at once), open findings due within `soonDays`,
 * risk acceptances ending within `soonDays`, open findings on KEV vulnerabilities never
 * announced as such (their vulnerability entered KEV after they were found).
 */
export function watchRows(
  type: FindingWatchType,
  now: Date,
  options: { soonDays: number; breachWindowDays: number; organizationId?: string },
): RawBuilder<EventRowsQuery> {
  const at = sql`${now}::timestamptz`;
  const soon = sql`${at} + make_interval(days => ${options.soonDays}::int)`;
  const subject = sql`'findings/' || f.id`;
  const org = options.organizationId ? sql`f.organization_id = ${options.organizationId}::uuid` : sql`true`;
  const from = sql`findings f
    join ${joinableAssets('a')} on a.organization_id = f.organization_id and a.id = f.asset_id
    join ${joinableVulnerabilities('v')} on v.organization_id = f.organization_id and v.id = f.vulnerability_id`;
  const open = sql`f.state in ('Open', 'Reopened')`;
  const once = (key: RawBuilder<unknown>, where: RawBuilder<unknown>, data: RawBuilder<unknown>) =>
    sql<EventRowsQuery>`select * from (
        select f.organization_id, ${subject} as subject, ${data} as data, ${findingFacets} as facets, ${key} as mark_key
        from ${from} where ${org} and ${where}) x
      where not ${alreadyPublished(sql`x.organization_id`, sql`x.mark_key`)}`;
  const dueKey = sql`${type}::text || ':' || f.id || ':' || ${iso(sql`f.due_at`)}`;
  const dueData = sql`jsonb_build_object('Finding', ${findingRef}, 'DueAt', ${iso(sql`f.due_at`)})`;
  switch (type) {
    case 'finding.sla_breached':
      return once(
        dueKey,
        sql`${open} and f.due_at <= ${at} and f.due_at > ${at} - make_interval(days => ${options.breachWindowDays}::int)`,
        dueData,
      );
    case 'finding.sla_due_soon':
      return once(dueKey, sql`${open} and f.due_at > ${at} and f.due_at <= ${soon}`, dueData);
    case 'risk_acceptance.expiring':
      return once(
        sql`${type}::text || ':' || f.id || ':' || ${iso(sql`f.risk_accepted_until`)}`,
        sql`f.state = 'RiskAccepted' and f.risk_accepted_until > ${at} and f.risk_accepted_until <= ${soon}`,
        sql`jsonb_build_object('Finding', ${findingRef}, 'AcceptedUntil', ${iso(sql`f.risk_accepted_until`)})`,
      );
    case 'finding.kev_found':
      return once(
        kevMark(sql`f.id`, sql`null`),
        sql`${open} and v.kev`,
        sql`jsonb_build_object('Finding', ${findingRef})`,
      );
  }
}

/** Open findings of these vulnerabilities now in KEV, never announced as such: after an intel load. */
export function kevRowsOfVulnerabilities(
  organizationId: string,
  vulnerabilityIds: readonly string[],
): RawBuilder<EventRowsQuery> {
  return sql<EventRowsQuery>`select * from (
      select f.organization_id, 'findings/' || f.id as subject, jsonb_build_object('Finding', ${findingRef}) as data,
        ${findingFacets} as facets, ${kevMark(sql`f.id`, sql`null`)} as mark_key
      from findings f
      join ${joinableAssets('a')} on a.organization_id = f.organization_id and a.id = f.asset_id
      join ${joinableVulnerabilities('v')} on v.organization_id = f.organization_id and v.id = f.vulnerability_id
      where f.organization_id = ${organizationId}::uuid and f.vulnerability_id = any(${[...vulnerabilityIds]}::uuid[])
        and v.kev and f.state in ('Open', 'Reopened')) x
    where not ${alreadyPublished(sql`x.organization_id`, sql`x.mark_key`)}`;
}
