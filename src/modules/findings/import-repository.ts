import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { DB, FindingState } from '../../db/schema.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import type { ImportedAsset } from '../assets/service.js';
import { clearStaged, importsStagedIn } from '../imports/staging.js';
import type { ImportedVulnerability } from '../vulnerabilities/service.js';
import { FindingCopyStaging } from './copy-staging.js';
import type { SlaDaysSql } from './repository.js';
import {
  changeWhenNotSeenAgain,
  changeWhenSeenAgain,
  FINDING_STATES,
  fixedAtChange,
  REPORTED_STATES,
  type ReportedState,
  type ScanChange,
  scanChangeReason,
  stateWhenFirstSeen,
} from './rules.js';

type Db = Kysely<DB> | Transaction<DB>;

export type { StagedFinding } from './copy-staging.js';

export interface FindingMergeOptions {
  importId: string;
  /** The import's assets, as the assets module resolved them (by the key findings were staged with). */
  assets: ImportedAsset[];
  /** The import's vulnerabilities, as their module merged and enriched them (by key), in pages. */
  vulnerabilities: AsyncIterable<ImportedVulnerability[]>;
  /** Vulnerabilities whose intelligence this import's enrichment changed: their seen findings are re-scored. */
  rescoreVulnerabilityIds: string[];
  source: string;
  /** Findings last reported in this scope and not seen again become Fixed; else per asset and tool. */
  scopeName: string | null;
  /** The application's clock at the merge: when findings are seen, created and updated. */
  seenAt: Date;
  sla: SlaDaysSql;
  /** Finding rows staged (all on assets that resolved); those beyond the distinct ones were duplicates. */
  stagedFindings: number;
  actorType: string;
  actorId: string | null;
  /**
   * Where a scan looked to the end: exactly these findings may become Fixed when not seen again,
   * whichever scope they are in (a port a budget left unscanned stays as it is); null: the scope's.
   */
  fixOnly?: string[] | null;
}

/** How the findings merge went, for the Import's counts. */
export interface FindingMergeCounts {
  New: number;
  Reopened: number;
  Fixed: number;
  Unchanged: number;
  DuplicatesMerged: number;
}

// Rows a statement sends as one JSON parameter: small enough for the embedded database's messages.
const CHUNK = 10_000;

/** One condition on the finding's current state (and the report's decision) and the change it makes. */
interface StateRule {
  when: RawBuilder<unknown>;
  from: FindingState;
  change: ScanChange;
}

const lit = (value: string) => sql.lit(value);
const reportedIs = (reported: ReportedState | null) =>
  reported === null ? sql`m.state is null` : sql`m.state = ${lit(reported)}`;

/** The seen-again rule (rules.ts) spelt out for every current state and reported decision. */
function seenAgainRules(): StateRule[] {
  return FINDING_STATES.flatMap((from) =>
    [null, ...REPORTED_STATES].flatMap((reported) => {
      const change = changeWhenSeenAgain(from, reported);
      return change ? [{ when: sql`f.state = ${lit(from)} and ${reportedIs(reported)}`, from, change }] : [];
    }),
  );
}

/** The not-seen-again rule (rules.ts) for every state it changes. */
function notSeenAgainRules(): StateRule[] {
  return FINDING_STATES.flatMap((from) => {
    const change = changeWhenNotSeenAgain(from);
    return change ? [{ when: sql`f.state = ${lit(from)}`, from, change }] : [];
  });
}

/**
 * The SET expressions of an update of findings `f` by the rules: one CASE per column, derived
 * from rules.ts so that the SQL cannot drift from them. `reportedReason` is the report's reason.
 */
function stateColumns(rules: StateRule[], seenAt: Date, reportedReason: RawBuilder<unknown>) {
  const cases = (then: (rule: StateRule) => RawBuilder<unknown>, otherwise: RawBuilder<unknown>) =>
    sql`case ${sql.join(
      rules.map((r) => sql`when ${r.when} then ${then(r)}`),
      sql` `,
    )} else ${otherwise} end`;
  const fixedAt = { set: sql`${seenAt}::timestamptz`, clear: sql`null`, keep: sql`f.fixed_at` };
  return {
    state: cases((r) => lit(r.change.state), sql`f.state`),
    reason: cases((r) => (r.change.reason === 'reported' ? reportedReason : sql`null`), sql`f.state_reason`),
    fixedAt: cases((r) => fixedAt[fixedAtChange(r.from, r.change.state)], sql`f.fixed_at`),
  };
}

/** A new finding's state and fixed date, from the decision the report carries (rules.ts). */
function firstSeenColumns(seenAt: Date) {
  const reported = [null, ...REPORTED_STATES];
  const cases = (then: (state: FindingState) => RawBuilder<unknown>) =>
    sql`case ${sql.join(
      reported.map((r) => sql`when ${reportedIs(r)} then ${then(stateWhenFirstSeen(r))}`),
      sql` `,
    )} end`;
  return {
    state: cases((state) => lit(state)),
    fixedAt: cases((state) =>
      fixedAtChange(null, state) === 'set' ? sql`${seenAt}::timestamptz` : sql`null`,
    ),
  };
}

/**
 * The findings' side of a scanner-report import: the report's findings staged in
 * import_findings while it streams in, then merged set-based into findings and finding_events
 * inside the import's one transaction, by the state rules of rules.ts.
 */
export class FindingImportRepository {
  constructor(
    private readonly db: Kysely<DB>,
    // How a `pg` client reaches the same database: COPY needs a connection of its own.
    private readonly connection: pg.ClientConfig,
  ) {}

  /**
   * Where a report's findings stream while it is parsed: a COPY on a connection of its own
   * (copy-staging.ts), moved into import_findings when the report ends.
   */
  openStaging(organizationId: string, importId: string): Promise<FindingCopyStaging> {
    return FindingCopyStaging.open(this.connection, organizationId, importId);
  }

  /** The imports that have rows staged here: what a sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return importsStagedIn(this.db, ['import_findings']);
  }

  clear(organizationId: string, importId: string, db: Db = this.db): Promise<void> {
    return clearStaged(db, ['import_findings'], organizationId, importId);
  }

  /**
   * Findings, set-based: the report's rows (exact duplicates merged, the last one kept) are
   * matched to known findings by deduplication key; new ones are inserted, seen ones updated
   * (Fixed → Reopened), and the scope's findings the report no longer shows become Fixed.
   * RiskAccepted and FalsePositive decisions stay. Every change is written to the history.
   */
  async merge(
    organizationId: string,
    o: FindingMergeOptions,
    trx: Db,
  ): Promise<{ counts: FindingMergeCounts; changedIds: string[] }> {
    // One merge at a time per organisation: a sighting's member count is read, then adjusted, by
    // this transaction (finding_sightings); another merge moving the same findings in between
    // could make it count too few.
    await sql`select pg_advisory_xact_lock(hashtext(${`findings-merge:${organizationId}`}))`.execute(trx);
    await this.loadResolved(o, trx);
    await sql`drop table if exists pg_temp.import_merge`.execute(trx);
    // Staging tables fill up within seconds; without fresh statistics the planner takes them for
    // empty and joins them row by row (2.5 s instead of 0.2 s at 20,000 findings, bench:import).
    await sql`analyze import_findings`.execute(trx);
    await sql`
      create temp table import_merge on commit drop as
      select distinct on (x.dedup_key) x.*, f.id as finding_id, f.state as current_state, f.sighting_id
      from (
        select s.*, a.asset_id, v.vulnerability_id, v.cvss_score, v.epss_percentile, v.kev, v.rescore,
          a.criticality, a.internet_facing,
          encode(sha256(convert_to(a.asset_id::text || '|' || s.vulnerability_key || '|' || s.location_key, 'UTF8')), 'hex') as dedup_key
        from import_findings s
        join import_merge_assets a on a.asset_key = s.asset_key
        join import_merge_vulnerabilities v on v.vulnerability_key = s.vulnerability_key
        where s.organization_id = ${organizationId} and s.import_id = ${o.importId}
      ) x
      left join findings f on f.organization_id = ${organizationId} and f.dedup_key = x.dedup_key
      order by x.dedup_key, x.seq desc`.execute(trx);
    // Looked up by key from findings ("not seen again"); the planner cannot know how many findings
    // this transaction just added, so without the index it may scan this table once per finding.
    await sql`create index on import_merge (dedup_key)`.execute(trx);
    await sql`analyze import_merge`.execute(trx);

    const sizes = (
      await sql<{ distinct: number; seen: number }>`
        select count(*)::int as distinct, count(finding_id)::int as seen from import_merge`.execute(trx)
    ).rows[0];
    const sightings = await this.openSighting(organizationId, o, trx);
    const inserted = await this.insertNew(organizationId, o, sightings, trx);
    const seen = await this.updateSeen(organizationId, o, sightings, trx);
    await this.closeSightings(organizationId, o, sightings, inserted, trx);
    const changed = seen.filter((r) => r.from_state !== r.to_state);
    const reopened = changed.filter((r) => r.to_state === 'Reopened').length;
    const fixed = await this.fixNotSeen(organizationId, o, sightings, trx);

    const transitions = [...changed, ...fixed];
    await this.logTransitions(organizationId, o, transitions, trx);
    return {
      counts: {
        New: inserted,
        Reopened: reopened,
        Fixed: fixed.length,
        // Every finding seen again, rewritten or not (a carried sighting's are not).
        Unchanged: (sizes?.seen ?? 0) - reopened,
        DuplicatesMerged: o.stagedFindings - (sizes?.distinct ?? 0),
      },
      // Tickets follow their findings' state changes.
      changedIds: transitions.map((t) => t.id),
    };
  }

  /**
   * What the other modules resolved (assets, vulnerabilities with their intelligence) as
   * temporary tables of this transaction, with statistics, for the set-based merge to join.
   */
  private async loadResolved(o: FindingMergeOptions, trx: Db): Promise<void> {
    await sql`drop table if exists pg_temp.import_merge_assets`.execute(trx);
    await sql`drop table if exists pg_temp.import_merge_vulnerabilities`.execute(trx);
    await sql`
      create temp table import_merge_assets (asset_key text primary key, asset_id uuid not null,
        criticality integer not null, internet_facing boolean not null) on commit drop`.execute(trx);
    await sql`
      create temp table import_merge_vulnerabilities (vulnerability_key text primary key,
        vulnerability_id uuid not null, cvss_score numeric, epss_percentile numeric, kev boolean not null,
        rescore boolean not null default false) on commit drop`.execute(trx);
    for (let i = 0; i < o.assets.length; i += CHUNK)
      await sql`
        insert into import_merge_assets
        select r.key, r.id, r.criticality, r."internetFacing"
        from jsonb_to_recordset(${JSON.stringify(o.assets.slice(i, i + CHUNK))}::jsonb)
          as r(key text, id uuid, criticality integer, "internetFacing" boolean)`.execute(trx);
    for await (const page of o.vulnerabilities)
      await sql`
        insert into import_merge_vulnerabilities
        select r.key, r.id, r."cvssScore", r."epssPercentile", r.kev
        from jsonb_to_recordset(${JSON.stringify(page)}::jsonb)
          as r(key text, id uuid, "cvssScore" numeric, "epssPercentile" numeric, kev boolean)`.execute(trx);
    // Marked once here, joined by hash: "= any(array)" per finding scanned the whole list for
    // each of them (a Trivy variant re-import: 95,000 findings against 5,000 enriched ids).
    if (o.rescoreVulnerabilityIds.length > 0)
      await sql`
        update import_merge_vulnerabilities v set rescore = true
        from unnest(${o.rescoreVulnerabilityIds}::uuid[]) as r(id) where v.vulnerability_id = r.id`.execute(
        trx,
      );
    await sql`analyze import_merge_assets, import_merge_vulnerabilities`.execute(trx);
  }

  /** New findings, in the state the report gives (VEX decisions) or Open, with their first event. */
  private async insertNew(
    organizationId: string,
    o: FindingMergeOptions,
    sightings: Sightings,
    trx: Db,
  ): Promise<number> {
    const first = firstSeenColumns(o.seenAt);
    const inserted = await sql<{ n: number }>`
      with added as (
        insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol,
          url, parameter, file_path, line, package_name, package_version, title, severity, state, state_reason,
          risk_score, due_at, confidence, evidence, source, tool_finding_id, scope_name, last_import_id, sighting_id,
          first_seen_at, last_seen_at, fixed_at, created_at, updated_at)
        select ${organizationId}::uuid, rampart_uuidv7(), m.asset_id, m.vulnerability_id, m.dedup_key, m.location_kind, m.port,
          m.protocol, m.url, m.parameter, m.file_path, m.line, m.package_name, m.package_version, m.title, m.severity,
          ${first.state}, m.state_reason,
          ${counted(sql`m`, riskScore(sql`m.cvss_score`, sql`m.severity`), sql`0`)},
          ${counted(sql`m`, sql`rampart_due_at(m.severity, ${o.seenAt}::timestamptz, m.kev, ${slaArgs(o.sla)})`, sql`null`)},
          coalesce(m.confidence, 'Confirmed'), m.evidence, ${o.source}::text,
          m.tool_finding_id, ${o.scopeName}::text, ${o.importId}::uuid, ${sightings.id}::uuid, ${o.seenAt}::timestamptz,
          ${o.seenAt}::timestamptz,
          ${first.fixedAt}, ${o.seenAt}::timestamptz, ${o.seenAt}::timestamptz
        from import_merge m where m.finding_id is null
        -- In vulnerability order, not key (hash) order: each row's foreign-key check visits its
        -- vulnerability and its entry goes into findings_vulnerability_idx, and a Trivy report's
        -- many vulnerabilities visited at random cost PGlite (128 MB of buffers) about twice what
        -- Nessus' few did once other imports' rows filled the table (bench:import, 20,000
        -- findings after Nessus: 12.0 s against 5.5 s in key order; 4.0 s against 2.9 s now).
        order by m.vulnerability_id
        returning id, state, state_reason
      ), logged as (
        insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, actor_id, kind, to_state, reason, details)
        select ${organizationId}::uuid, rampart_uuidv7(), a.id, ${o.seenAt}::timestamptz, ${actor(o)}, 'created', a.state,
          a.state_reason, jsonb_build_object('source', ${o.source}::text, 'importId', ${o.importId}::text)
        from added a
      )
      select count(*)::int as n from added`.execute(trx);
    return Number(inserted.rows[0]?.n ?? 0);
  }

  /**
   * Seen again: last seen, evidence, the scanner's severity and the scope follow the report;
   * the state follows the seen-again rule (Fixed comes back as Reopened; a decision the report
   * carries applies to open ones).
   */
  private async updateSeen(organizationId: string, o: FindingMergeOptions, sightings: Sightings, trx: Db) {
    const confidence = sql`coalesce(m.confidence, 'Confirmed')`;
    const rescore = sql`(m.severity is distinct from f.severity or m.rescore or ${confidence} is distinct from f.confidence)`;
    const state = stateColumns(seenAgainRules(), o.seenAt, sql`m.state_reason`);
    const carried = sql`coalesce(f.sighting_id = any(${sightings.carried}::uuid[]), false)`;
    // What the SET below would change besides when it was seen: a finding of a carried sighting
    // for which this is all false is left as it is (its sighting says it was seen).
    const changes = sql`(m.evidence is not null and m.evidence is distinct from f.evidence)
      or m.severity is distinct from f.severity or ${rescore}
      or (${o.scopeName}::text is not null and ${o.scopeName}::text is distinct from f.scope_name)
      or (m.tool_finding_id is not null and m.tool_finding_id is distinct from f.tool_finding_id)
      or ${state.state} is distinct from f.state or ${state.reason} is distinct from f.state_reason
      or ${state.fixedAt} is distinct from f.fixed_at`;
    const seen = await sql<Transition>`
      update findings f set
        last_seen_at = greatest(f.last_seen_at, ${o.seenAt}::timestamptz),
        evidence = coalesce(m.evidence, f.evidence),
        severity = m.severity,
        -- Re-scored only when the report changed the severity or intelligence changed the
        -- vulnerability: an unchanged re-import leaves both as they are (bench:import).
        risk_score = case when ${rescore} then ${counted(sql`m`, riskScore(sql`case when f.severity_override is null then m.cvss_score end`, sql`coalesce(f.severity_override, m.severity)`), sql`0`)} else f.risk_score end,
        due_at = case when ${rescore} then ${counted(sql`m`, sql`rampart_due_at(coalesce(f.severity_override, m.severity), f.first_seen_at, m.kev, ${slaArgs(o.sla)})`, sql`null`)} else f.due_at end,
        -- The latest report decides: a scan with the distribution's data confirms (or closes) it.
        confidence = ${confidence},
        scope_name = coalesce(${o.scopeName}::text, f.scope_name),
        last_import_id = ${o.importId}::uuid,
        sighting_id = case when ${carried} then f.sighting_id else ${sightings.id}::uuid end,
        tool_finding_id = coalesce(m.tool_finding_id, f.tool_finding_id),
        state = ${state.state},
        state_reason = ${state.reason},
        fixed_at = ${state.fixedAt},
        updated_at = ${o.seenAt}::timestamptz
      from import_merge m
      where f.organization_id = ${organizationId} and f.id = m.finding_id and (not ${carried} or ${changes})
      returning f.id, m.current_state as from_state, f.state as to_state`.execute(trx);
    return seen.rows;
  }

  /**
   * Not seen again in this scope: the not-seen-again rule (open ones become Fixed). Everything
   * the report showed now names this import as the last that reported it (inserted or updated
   * above) or is in a sighting it carried: no search of the report needed.
   */
  private async fixNotSeen(organizationId: string, o: FindingMergeOptions, sightings: Sightings, trx: Db) {
    const rules = notSeenAgainRules();
    const state = stateColumns(rules, o.seenAt, sql`null`);
    if (o.fixOnly && o.fixOnly.length === 0) return [];
    // A scan names the findings it has evidence about, whichever scan's scope they are in (a TLS
    // issue of an endpoint is one finding that system and web scans both confirm and close); a
    // report fixes its own scope's (or its tool's on its assets).
    const scope = o.fixOnly
      ? sql`f.id = any(${o.fixOnly}::uuid[])`
      : o.scopeName
        ? sql`f.scope_name = ${o.scopeName}::text`
        : sql`f.source = ${o.source}::text and f.asset_id in (select asset_id from import_merge_assets)`;

    const fixed = await sql<Transition>`
      with gone as (
        select f.id, f.state from findings f
        where f.organization_id = ${organizationId} and f.state in (${sql.join(rules.map((r) => lit(r.from)))})
          and ${scope} and f.last_import_id is distinct from ${o.importId}::uuid
          and not coalesce(f.sighting_id = any(${sightings.carried}::uuid[]), false)
      )
      update findings f set state = ${state.state}, state_reason = ${state.reason}, fixed_at = ${state.fixedAt},
        updated_at = ${o.seenAt}::timestamptz
      from gone g
      where f.organization_id = ${organizationId} and f.id = g.id
      returning f.id, g.state as from_state, f.state as to_state`.execute(trx);
    return fixed.rows;
  }

  /**
   * This import's sighting (new findings and those rewritten join it), and the sightings it
   * carries: those whose every member the report shows again. A sighting's count may be too
   * high (a member deleted) but never too low, so equality means all its members are here.
   * A sighting the report shows most of is made whole first (leaveSightings).
   */
  private async openSighting(organizationId: string, o: FindingMergeOptions, trx: Db): Promise<Sightings> {
    const id = uuidv7(o.seenAt.getTime());
    await sql`
      insert into finding_sightings (organization_id, id, import_id, seen_at, findings)
      values (${organizationId}::uuid, ${id}::uuid, ${o.importId}::uuid, ${o.seenAt}::timestamptz, 0)`.execute(
      trx,
    );
    await this.leaveSightings(organizationId, trx);
    const carried = await sql<{ id: string }>`
      select s.id from finding_sightings s
      join (select sighting_id, count(*)::int as n from import_merge where sighting_id is not null group by sighting_id) r
        on r.sighting_id = s.id
      where s.organization_id = ${organizationId} and s.findings = r.n`.execute(trx);
    return { id, carried: carried.rows.map((r) => r.id) };
  }

  /**
   * The members of a sighting this report does not show leave it, when they are fewer than those
   * it shows: each keeps when it was last seen and by which import (what the sighting said of
   * it), and the sighting, now shown whole, is carried. Otherwise every member shown would be
   * rewritten into this import's sighting: a re-import where 10 % of 100,000 findings are fixed
   * rewrote 90,000 findings (and every index of findings) to move them (bench:import); now
   * 10,000 leave, which are rewritten anyway as they become Fixed.
   */
  private async leaveSightings(organizationId: string, trx: Db): Promise<void> {
    await sql`
      with shown as (
        select sighting_id as id, count(*)::int as n from import_merge where sighting_id is not null group by sighting_id
      ), mostly as (
        select s.id, s.import_id, s.seen_at, r.n from finding_sightings s join shown r on r.id = s.id
        where s.organization_id = ${organizationId} and s.findings > r.n and s.findings - r.n < r.n
      ), left_out as (
        update findings f set sighting_id = null, last_seen_at = greatest(f.last_seen_at, m.seen_at),
          last_import_id = m.import_id
        from mostly m
        where f.organization_id = ${organizationId} and f.sighting_id = m.id
          and not exists (select 1 from import_merge x where x.finding_id = f.id)
      )
      update finding_sightings s set findings = m.n
      from mostly m where s.organization_id = ${organizationId} and s.id = m.id`.execute(trx);
  }

  /**
   * The carried sightings now say this import saw them; the others lose the members this import
   * rewrote into its own sighting, which counts them with the new ones. Empty sightings go.
   */
  private async closeSightings(
    organizationId: string,
    o: FindingMergeOptions,
    sightings: Sightings,
    inserted: number,
    trx: Db,
  ): Promise<void> {
    const carried = sql`${sightings.carried}::uuid[]`;
    await sql`
      update finding_sightings set import_id = ${o.importId}::uuid, seen_at = greatest(seen_at, ${o.seenAt}::timestamptz)
      where organization_id = ${organizationId} and id = any(${carried})`.execute(trx);
    const moved = await sql<{ id: string; n: number }>`
      select sighting_id as id, count(*)::int as n from import_merge
      where finding_id is not null and sighting_id is not null and not (sighting_id = any(${carried}))
      group by sighting_id`.execute(trx);
    const unassigned = Number(
      (
        await sql<{ n: number }>`
          select count(*)::int as n from import_merge where finding_id is not null and sighting_id is null`.execute(
          trx,
        )
      ).rows[0]?.n ?? 0,
    );
    if (moved.rows.length > 0)
      await sql`
        update finding_sightings s set findings = s.findings - r.n
        from jsonb_to_recordset(${JSON.stringify(moved.rows)}::jsonb) as r(id uuid, n int)
        where s.organization_id = ${organizationId} and s.id = r.id`.execute(trx);
    const joined = inserted + unassigned + moved.rows.reduce((sum, r) => sum + r.n, 0);
    await sql`
      update finding_sightings set findings = ${joined}::int
      where organization_id = ${organizationId} and id = ${sightings.id}::uuid`.execute(trx);
    const touched = [sightings.id, ...moved.rows.map((r) => r.id)];
    await sql`
      delete from finding_sightings
      where organization_id = ${organizationId} and id = any(${touched}::uuid[]) and findings <= 0`.execute(
      trx,
    );
  }

  private async logTransitions(
    organizationId: string,
    o: FindingMergeOptions,
    transitions: Transition[],
    trx: Db,
  ): Promise<void> {
    if (transitions.length === 0) return;
    const rows = transitions.map((t) => ({ ...t, reason: scanChangeReason(t.to_state, o.source) }));
    await sql`
      insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, actor_id, kind, from_state, to_state, reason, details)
      select ${organizationId}::uuid, rampart_uuidv7(), t.id, ${o.seenAt}::timestamptz, ${actor(o)}, 'state_changed', t.from_state,
        t.to_state, t.reason, jsonb_build_object('importId', ${o.importId}::text)
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as t(id uuid, from_state text, to_state text, reason text)`.execute(
      trx,
    );
  }
}

/** This import's sighting, and the earlier ones it carries (all their findings seen again). */
interface Sightings {
  id: string;
  carried: string[];
}

interface Transition {
  id: string;
  from_state: FindingState;
  to_state: FindingState;
}

const actor = (o: FindingMergeOptions) => sql`${o.actorType}::text, ${o.actorId}::uuid`;

// Risk and due date by the database's functions (src/db/functions/), as FindingRepository.rescore.
const slaArgs = (sla: SlaDaysSql) =>
  sql`${sla.Critical}::int, ${sla.High}::int, ${sla.Medium}::int, ${sla.Low}::int, ${sla.Info}::int, ${sla.Kev}::int`;
/** An Unconfirmed finding counts in neither risk nor SLA: scored 0, no due date. */
const counted = (m: RawBuilder<unknown>, value: RawBuilder<unknown>, otherwise: RawBuilder<unknown>) =>
  sql`case when ${m}.confidence = 'Unconfirmed' then ${otherwise} else ${value} end`;
const riskScore = (cvss: RawBuilder<unknown>, severity: RawBuilder<unknown>) =>
  sql`rampart_risk_score(${cvss}, ${severity}, m.epss_percentile, m.kev, m.criticality, m.internet_facing)`;
