import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { SlaDays } from '../settings/service.js';

type Db = Kysely<DB> | Transaction<DB>;

export interface StagedFinding {
  seq: number;
  assetKey: string;
  vulnerabilityKey: string;
  locationKey: string;
  locationKind: string;
  port: number | null;
  protocol: string | null;
  url: string | null;
  parameter: string | null;
  filePath: string | null;
  line: number | null;
  packageName: string | null;
  packageVersion: string | null;
  title: string;
  severity: string;
  evidence: string | null;
  toolFindingId: string | null;
  state: string | null;
  stateReason: string | null;
}

export interface StagedService {
  assetKey: string;
  port: number;
  protocol: string;
  name: string | null;
  product: string | null;
  version: string | null;
  cpe: string | null;
  banner: string | null;
}

export interface StagedSoftware {
  assetKey: string;
  name: string;
  version: string;
  vendor: string | null;
  category: string;
  cpe: string | null;
  purl: string | null;
}

/** How the merge went, for the Import's counts. */
export interface MergeCounts {
  New: number;
  Reopened: number;
  Fixed: number;
  Unchanged: number;
  DuplicatesMerged: number;
  Services: number;
  Software: number;
}

export interface MergeOptions {
  importId: string;
  /** Vulnerabilities whose intelligence this import's enrichment changed: their seen findings are re-scored. */
  rescoreVulnerabilityIds: string[];
  source: string;
  /** Findings last reported in this scope and not seen again become Fixed; else per asset and tool. */
  scopeName: string | null;
  /** The application's clock at the merge: when findings are seen, created and updated. */
  seenAt: Date;
  sla: SlaDays;
  /** Finding rows staged (all on assets that resolved); those beyond the distinct ones were duplicates. */
  stagedFindings: number;
  actorType: string;
  actorId: string | null;
}

const IMPORT_COLUMNS = [
  'id',
  'state',
  'format',
  'format_confidence',
  'scope_name',
  'file_name',
  'file_sha256',
  'file_size',
  'actor_type',
  'actor_id',
  'counts',
  'warnings',
  'error',
  'created_at',
  'started_at',
  'finished_at',
] as const;

export type ImportRow = Awaited<ReturnType<ImportRepository['findById']>> & {};

export class ImportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async create(
    organizationId: string,
    row: {
      id: string;
      fileName: string | null;
      fileSha256: string;
      fileSize: number;
      format: string | null;
      scopeName: string | null;
      actorType: string;
      actorId: string | null;
      createdAt: Date;
    },
  ): Promise<void> {
    await this.db
      .insertInto('imports')
      .values({
        organization_id: organizationId,
        id: row.id,
        state: 'Queued',
        format: row.format,
        scope_name: row.scopeName,
        file_name: row.fileName,
        file_sha256: row.fileSha256,
        file_size: row.fileSize,
        actor_type: row.actorType,
        actor_id: row.actorId,
        counts: '{}',
        warnings: [],
        created_at: row.createdAt,
        heartbeat_at: row.createdAt,
      })
      .execute();
  }

  findById(organizationId: string, id: string) {
    return this.db
      .selectFrom('imports')
      .select(IMPORT_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  listPage(organizationId: string, limit: number, after?: { createdAt: string; id: string }) {
    let q = this.db
      .selectFrom('imports')
      .select(IMPORT_COLUMNS)
      .where('organization_id', '=', organizationId);
    if (after)
      q = q.where(sql<boolean>`(created_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('imports')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async markRunning(organizationId: string, id: string, at: Date): Promise<void> {
    await this.db
      .updateTable('imports')
      .set({ state: 'Running', started_at: at, heartbeat_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async finish(
    organizationId: string,
    id: string,
    outcome: {
      state: 'Completed' | 'Failed';
      format: string | null;
      formatConfidence: number | null;
      counts: Record<string, number>;
      warnings: string[];
      error: string | null;
      at: Date;
    },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .updateTable('imports')
      .set({
        state: outcome.state,
        format: outcome.format,
        format_confidence: outcome.formatConfidence === null ? null : outcome.formatConfidence.toFixed(2),
        counts: JSON.stringify(outcome.counts),
        warnings: outcome.warnings,
        error: outcome.error,
        finished_at: outcome.at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async heartbeat(organizationId: string, id: string, at: Date): Promise<void> {
    await this.db
      .updateTable('imports')
      .set({ heartbeat_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  /** Imports left Queued or Running by a process that stopped (no heartbeat since `staleBefore`). */
  async failUnfinished(
    reason: string,
    at: Date,
    staleBefore: Date,
  ): Promise<{ organization_id: string; id: string }[]> {
    return this.db
      .updateTable('imports')
      .set({ state: 'Failed', error: reason, finished_at: at })
      .where('state', 'in', ['Queued', 'Running'])
      .where('heartbeat_at', '<', staleBefore)
      .returning(['organization_id', 'id'])
      .execute();
  }

  // ---- staging (short transactions while the report streams in) ----

  async stageAssets(organizationId: string, importId: string, assets: { key: string; input: unknown }[]) {
    if (assets.length === 0) return;
    await this.db
      .insertInto('import_assets')
      .values(
        assets.map((a) => ({
          organization_id: organizationId,
          import_id: importId,
          asset_key: a.key,
          input: JSON.stringify(a.input),
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'import_id', 'asset_key']).doNothing())
      .execute();
  }

  async stageVulnerabilities(
    organizationId: string,
    importId: string,
    vulnerabilities: { key: string; input: unknown }[],
  ) {
    if (vulnerabilities.length === 0) return;
    await this.db
      .insertInto('import_vulnerabilities')
      .values(
        vulnerabilities.map((v) => ({
          organization_id: organizationId,
          import_id: importId,
          vulnerability_key: v.key,
          input: JSON.stringify(v.input),
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'import_id', 'vulnerability_key']).doNothing())
      .execute();
  }

  // One JSON parameter per batch: binding 20 parameters a row costs more than the insert.
  async stageFindings(organizationId: string, importId: string, findings: StagedFinding[]) {
    if (findings.length === 0) return;
    await sql`
      insert into import_findings (organization_id, import_id, seq, asset_key, vulnerability_key, location_key,
        location_kind, port, protocol, url, parameter, file_path, line, package_name, package_version, title,
        severity, evidence, tool_finding_id, state, state_reason)
      select ${organizationId}::uuid, ${importId}::uuid, r.seq, r."assetKey", r."vulnerabilityKey", r."locationKey",
        r."locationKind", r.port, r.protocol, r.url, r.parameter, r."filePath", r.line, r."packageName",
        r."packageVersion", r.title, r.severity, r.evidence, r."toolFindingId", r.state, r."stateReason"
      from jsonb_to_recordset(${JSON.stringify(findings)}::jsonb) as r(seq int, "assetKey" text,
        "vulnerabilityKey" text, "locationKey" text, "locationKind" text, port int, protocol text, url text,
        parameter text, "filePath" text, line int, "packageName" text, "packageVersion" text, title text,
        severity text, evidence text, "toolFindingId" text, state text, "stateReason" text)`.execute(this.db);
  }

  async stageServices(organizationId: string, importId: string, services: StagedService[]) {
    if (services.length === 0) return;
    await this.db
      .insertInto('import_services')
      .values(
        services.map((s) => ({
          organization_id: organizationId,
          import_id: importId,
          asset_key: s.assetKey,
          port: s.port,
          protocol: s.protocol,
          name: s.name,
          product: s.product,
          version: s.version,
          cpe: s.cpe,
          banner: s.banner,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'import_id', 'asset_key', 'port', 'protocol']).doUpdateSet({
          name: sql`coalesce(excluded.name, import_services.name)`,
          product: sql`coalesce(excluded.product, import_services.product)`,
          version: sql`coalesce(excluded.version, import_services.version)`,
          cpe: sql`coalesce(excluded.cpe, import_services.cpe)`,
          banner: sql`coalesce(excluded.banner, import_services.banner)`,
        }),
      )
      .execute();
  }

  async stageSoftware(organizationId: string, importId: string, software: StagedSoftware[]) {
    if (software.length === 0) return;
    await this.db
      .insertInto('import_software')
      .values(
        software.map((s) => ({
          organization_id: organizationId,
          import_id: importId,
          asset_key: s.assetKey,
          name_key: s.name.toLowerCase(),
          version: s.version,
          name: s.name,
          vendor: s.vendor,
          category: s.category,
          cpe: s.cpe,
          purl: s.purl,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'import_id', 'asset_key', 'name_key', 'version']).doNothing(),
      )
      .execute();
  }

  stagedAssets(organizationId: string, importId: string, db: Db = this.db) {
    return db
      .selectFrom('import_assets')
      .select(['asset_key', 'input'])
      .where('organization_id', '=', organizationId)
      .where('import_id', '=', importId)
      .orderBy('asset_key')
      .execute();
  }

  async setStagedAssetIds(
    organizationId: string,
    importId: string,
    rows: { key: string; assetId: string }[],
    trx: Db,
  ): Promise<void> {
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await sql`
        update import_assets s set asset_id = w.asset_id
        from unnest(${chunk.map((r) => r.key)}::text[], ${chunk.map((r) => r.assetId)}::uuid[]) as w(asset_key, asset_id)
        where s.organization_id = ${organizationId} and s.import_id = ${importId} and s.asset_key = w.asset_key`.execute(
        trx,
      );
    }
  }

  async clearStaging(organizationId: string, importId: string, db: Db = this.db): Promise<void> {
    for (const table of [
      'import_findings',
      'import_services',
      'import_software',
      'import_vulnerabilities',
      'import_assets',
    ] as const) {
      await db
        .deleteFrom(table)
        .where('organization_id', '=', organizationId)
        .where('import_id', '=', importId)
        .execute();
    }
  }

  // ---- the merge (one transaction) ----

  /** Upserts the staged vulnerabilities into the knowledge base, set-based, and notes their ids. */
  async mergeVulnerabilities(organizationId: string, importId: string, source: string, at: Date, trx: Db) {
    await sql`
      with staged as (
        select vulnerability_key as key, input from import_vulnerabilities
        where organization_id = ${organizationId} and import_id = ${importId}
      ), upserted as (
        insert into vulnerabilities (organization_id, id, key, source, plugin_id, cve_ids, aliases, title,
          description, solution, cwe_ids, severity, cvss3_vector, cvss3_score, cvss4_vector, cvss4_score,
          reference_urls, published_at, created_at, updated_at)
        select ${organizationId}::uuid, rampart_uuidv7(), key, ${source}::text, input->>'ruleId',
          array(select jsonb_array_elements_text(coalesce(input->'cveIds', '[]'))),
          array(select jsonb_array_elements_text(coalesce(input->'aliases', '[]'))),
          input->>'title', input->>'description', input->>'solution',
          array(select jsonb_array_elements_text(coalesce(input->'cweIds', '[]'))),
          input->>'severity', input->>'cvss3Vector', (input->>'cvss3Score')::numeric,
          input->>'cvss4Vector', (input->>'cvss4Score')::numeric,
          array(select jsonb_array_elements_text(coalesce(input->'references', '[]'))),
          (input->>'publishedAt')::timestamptz, ${at}::timestamptz, ${at}::timestamptz
        from staged
        on conflict (organization_id, key) do update set
          cve_ids = array(select distinct unnest(vulnerabilities.cve_ids || excluded.cve_ids) order by 1),
          aliases = array(select distinct unnest(vulnerabilities.aliases || excluded.aliases) order by 1),
          cwe_ids = array(select distinct unnest(vulnerabilities.cwe_ids || excluded.cwe_ids) order by 1),
          reference_urls = (array(select distinct unnest(vulnerabilities.reference_urls || excluded.reference_urls) order by 1))[1:100],
          description = coalesce(vulnerabilities.description, excluded.description),
          solution = coalesce(vulnerabilities.solution, excluded.solution),
          plugin_id = coalesce(vulnerabilities.plugin_id, excluded.plugin_id),
          cvss3_vector = coalesce(vulnerabilities.cvss3_vector, excluded.cvss3_vector),
          cvss3_score = coalesce(vulnerabilities.cvss3_score, excluded.cvss3_score),
          cvss4_vector = coalesce(vulnerabilities.cvss4_vector, excluded.cvss4_vector),
          cvss4_score = coalesce(vulnerabilities.cvss4_score, excluded.cvss4_score),
          published_at = coalesce(vulnerabilities.published_at, excluded.published_at),
          updated_at = excluded.updated_at
        returning id, key
      )
      update import_vulnerabilities s set vulnerability_id = upserted.id
      from upserted
      where s.organization_id = ${organizationId} and s.import_id = ${importId} and s.vulnerability_key = upserted.key`.execute(
      trx,
    );
  }

  /**
   * Findings, set-based: the report's rows (exact duplicates merged, the last one kept) are
   * matched to known findings by deduplication key; new ones are inserted, seen ones updated
   * (Fixed → Reopened), and the scope's findings the report no longer shows become Fixed.
   * RiskAccepted and FalsePositive decisions stay. Every change is written to the history.
   */
  async mergeFindings(
    organizationId: string,
    o: MergeOptions,
    trx: Db,
  ): Promise<{ counts: Omit<MergeCounts, 'Services' | 'Software'>; changedIds: string[] }> {
    await sql`drop table if exists pg_temp.import_merge`.execute(trx);
    // Staging tables fill up within seconds; without fresh statistics the planner takes them for
    // empty and joins them row by row (2.5 s instead of 0.2 s at 20,000 findings, bench:import).
    await sql`analyze import_findings, import_assets, import_vulnerabilities`.execute(trx);
    await sql`
      create temp table import_merge on commit drop as
      select distinct on (x.dedup_key) x.*, f.id as finding_id, f.state as current_state
      from (
        select s.*, a.asset_id, v.vulnerability_id,
          coalesce(vu.cvss3_score, vu.cvss4_score, vu.cvss2_score) as cvss_score, vu.epss_percentile, vu.kev,
          vu.kev_due_date, asset.criticality, asset.internet_facing,
          encode(sha256(convert_to(a.asset_id::text || '|' || s.vulnerability_key || '|' || s.location_key, 'UTF8')), 'hex') as dedup_key
        from import_findings s
        join import_assets a on a.organization_id = s.organization_id and a.import_id = s.import_id and a.asset_key = s.asset_key
        join import_vulnerabilities v on v.organization_id = s.organization_id and v.import_id = s.import_id
          and v.vulnerability_key = s.vulnerability_key
        join vulnerabilities vu on vu.organization_id = s.organization_id and vu.id = v.vulnerability_id
        join assets asset on asset.organization_id = s.organization_id and asset.id = a.asset_id
        where s.organization_id = ${organizationId} and s.import_id = ${o.importId} and a.asset_id is not null
      ) x
      left join findings f on f.organization_id = ${organizationId} and f.dedup_key = x.dedup_key
      order by x.dedup_key, x.seq desc`.execute(trx);
    // Looked up by key from findings ("not seen again"); the planner cannot know how many findings
    // this transaction just added, so without the index it may scan this table once per finding.
    await sql`create index on import_merge (dedup_key)`.execute(trx);
    await sql`analyze import_merge`.execute(trx);

    const distinct = Number(
      (await sql<{ n: string }>`select count(*) as n from import_merge`.execute(trx)).rows[0]?.n ?? 0,
    );
    const duplicates = o.stagedFindings - distinct;

    const actor = sql`${o.actorType}::text, ${o.actorId}::uuid`;
    // Risk and due date by the database's functions (migration 0010), as FindingRepository.rescore.
    const sla = sql`${o.sla.Critical}::int, ${o.sla.High}::int, ${o.sla.Medium}::int, ${o.sla.Low}::int, ${o.sla.Info}::int`;
    const rescore = sql`(m.severity is distinct from f.severity or m.vulnerability_id = any(${o.rescoreVulnerabilityIds}::uuid[]))`;
    const risk = (cvss: RawBuilder<unknown>, severity: RawBuilder<unknown>) =>
      sql`rampart_risk_score(${cvss}, ${severity}, m.epss_percentile, m.kev, m.criticality, m.internet_facing)`;

    // New findings, in the state the report gives (VEX decisions) or Open, with their first event.
    const inserted = await sql<{ n: number }>`
      with added as (
        insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol,
          url, parameter, file_path, line, package_name, package_version, title, severity, state, state_reason,
          risk_score, due_at, evidence, source, tool_finding_id, scope_name, last_import_id, first_seen_at, last_seen_at,
          fixed_at, created_at, updated_at)
        select ${organizationId}::uuid, rampart_uuidv7(), m.asset_id, m.vulnerability_id, m.dedup_key, m.location_kind, m.port,
          m.protocol, m.url, m.parameter, m.file_path, m.line, m.package_name, m.package_version, m.title, m.severity,
          coalesce(m.state, 'Open'), m.state_reason,
          ${risk(sql`m.cvss_score`, sql`m.severity`)},
          rampart_due_at(m.severity, ${o.seenAt}::timestamptz, m.kev_due_date, ${sla}), m.evidence, ${o.source}::text,
          m.tool_finding_id, ${o.scopeName}::text, ${o.importId}::uuid, ${o.seenAt}::timestamptz, ${o.seenAt}::timestamptz,
          case when m.state = 'Fixed' then ${o.seenAt}::timestamptz end, ${o.seenAt}::timestamptz, ${o.seenAt}::timestamptz
        from import_merge m where m.finding_id is null
        returning id, state, state_reason
      ), logged as (
        insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, actor_id, kind, to_state, reason, details)
        select ${organizationId}::uuid, rampart_uuidv7(), a.id, ${o.seenAt}::timestamptz, ${actor}, 'created', a.state,
          a.state_reason, jsonb_build_object('source', ${o.source}::text, 'importId', ${o.importId}::text)
        from added a
      )
      select count(*)::int as n from added`.execute(trx);
    const insertedCount = Number(inserted.rows[0]?.n ?? 0);

    // Seen again: last seen, evidence, the scanner's severity and the scope follow the report;
    // Fixed comes back as Reopened; a decision the report carries (VEX) applies to open ones.
    const seen = await sql<{ id: string; from_state: string; to_state: string }>`
      update findings f set
        last_seen_at = greatest(f.last_seen_at, ${o.seenAt}::timestamptz),
        evidence = coalesce(m.evidence, f.evidence),
        severity = m.severity,
        -- Re-scored only when the report changed the severity or intelligence changed the
        -- vulnerability: an unchanged re-import leaves both as they are (bench:import).
        risk_score = case when ${rescore} then ${risk(sql`case when f.severity_override is null then m.cvss_score end`, sql`coalesce(f.severity_override, m.severity)`)} else f.risk_score end,
        due_at = case when ${rescore} then rampart_due_at(coalesce(f.severity_override, m.severity), f.first_seen_at, m.kev_due_date, ${sla}) else f.due_at end,
        scope_name = coalesce(${o.scopeName}::text, f.scope_name),
        last_import_id = ${o.importId}::uuid,
        tool_finding_id = coalesce(m.tool_finding_id, f.tool_finding_id),
        state = case
          when f.state = 'Fixed' and coalesce(m.state, 'Open') <> 'Fixed' then 'Reopened'
          when f.state in ('Open', 'Reopened') and m.state is not null then m.state
          else f.state end,
        state_reason = case
          when f.state = 'Fixed' and coalesce(m.state, 'Open') <> 'Fixed' then null
          when f.state in ('Open', 'Reopened') and m.state is not null then m.state_reason
          else f.state_reason end,
        fixed_at = case
          when f.state = 'Fixed' and coalesce(m.state, 'Open') <> 'Fixed' then null
          when f.state in ('Open', 'Reopened') and m.state = 'Fixed' then ${o.seenAt}::timestamptz
          else f.fixed_at end,
        updated_at = ${o.seenAt}::timestamptz
      from import_merge m
      where f.organization_id = ${organizationId} and f.id = m.finding_id
      returning f.id, m.current_state as from_state, f.state as to_state`.execute(trx);
    const changed = seen.rows.filter((r) => r.from_state !== r.to_state);
    const reopened = changed.filter((r) => r.to_state === 'Reopened').length;

    // Not seen again in this scope: Fixed. Everything the report showed now names this import as
    // the last that reported it (inserted or updated above): no search of the report needed.
    const scope = o.scopeName
      ? sql`f.scope_name = ${o.scopeName}::text`
      : sql`f.source = ${o.source}::text and f.asset_id in (select distinct asset_id from import_assets
          where organization_id = ${organizationId} and import_id = ${o.importId} and asset_id is not null)`;
    const fixed = await sql<{ id: string; from_state: string; to_state: string }>`
      with gone as (
        select f.id, f.state from findings f
        where f.organization_id = ${organizationId} and f.state in ('Open', 'Reopened') and ${scope}
          and f.last_import_id is distinct from ${o.importId}::uuid
      )
      update findings f set state = 'Fixed', state_reason = null, fixed_at = ${o.seenAt}::timestamptz, updated_at = ${o.seenAt}::timestamptz
      from gone g
      where f.organization_id = ${organizationId} and f.id = g.id
      returning f.id, g.state as from_state, 'Fixed' as to_state`.execute(trx);

    const transitions = [...changed, ...fixed.rows];
    if (transitions.length > 0) {
      await sql`
        insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, actor_id, kind, from_state, to_state, reason, details)
        select ${organizationId}::uuid, rampart_uuidv7(), t.id, ${o.seenAt}::timestamptz, ${actor}, 'state_changed', t.from_state, t.to_state,
          case t.to_state when 'Fixed' then ${`Not seen again (${o.source})`}::text
            when 'Reopened' then ${`Seen again (${o.source})`}::text
            else ${`Reported by ${o.source}`}::text end,
          jsonb_build_object('importId', ${o.importId}::text)
        from jsonb_to_recordset(${JSON.stringify(transitions)}::jsonb) as t(id uuid, from_state text, to_state text)`.execute(
        trx,
      );
    }
    return {
      counts: {
        New: insertedCount,
        Reopened: reopened,
        Fixed: fixed.rows.length,
        Unchanged: seen.rows.length - reopened,
        DuplicatesMerged: duplicates,
      },
      // Tickets follow their findings' state changes.
      changedIds: transitions.map((t) => t.id),
    };
  }

  async mergeServices(organizationId: string, importId: string, seenAt: Date, trx: Db): Promise<number> {
    const result = await sql`
      insert into asset_services (organization_id, id, asset_id, port, protocol, name, product, version, cpe, banner,
        first_seen_at, last_seen_at)
      select ${organizationId}::uuid, rampart_uuidv7(), a.asset_id, s.port, s.protocol, s.name, s.product, s.version, s.cpe,
        s.banner, ${seenAt}::timestamptz, ${seenAt}::timestamptz
      from import_services s join import_assets a on a.organization_id = s.organization_id
        and a.import_id = s.import_id and a.asset_key = s.asset_key
      where s.organization_id = ${organizationId} and s.import_id = ${importId} and a.asset_id is not null
      on conflict (organization_id, asset_id, port, protocol) do update set
        name = coalesce(excluded.name, asset_services.name),
        product = coalesce(excluded.product, asset_services.product),
        version = coalesce(excluded.version, asset_services.version),
        cpe = coalesce(excluded.cpe, asset_services.cpe),
        banner = coalesce(excluded.banner, asset_services.banner),
        last_seen_at = greatest(asset_services.last_seen_at, excluded.last_seen_at)`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  }

  async mergeSoftware(organizationId: string, importId: string, seenAt: Date, trx: Db): Promise<number> {
    const result = await sql`
      insert into asset_software (organization_id, id, asset_id, name, version, vendor, category, cpe, purl,
        first_seen_at, last_seen_at)
      select distinct on (a.asset_id, s.name_key, s.version) ${organizationId}::uuid, rampart_uuidv7(), a.asset_id, s.name,
        s.version, s.vendor, s.category, s.cpe, s.purl, ${seenAt}::timestamptz, ${seenAt}::timestamptz
      from import_software s join import_assets a on a.organization_id = s.organization_id
        and a.import_id = s.import_id and a.asset_key = s.asset_key
      where s.organization_id = ${organizationId} and s.import_id = ${importId} and a.asset_id is not null
      order by a.asset_id, s.name_key, s.version
      on conflict (organization_id, asset_id, name_key, version) do update set
        vendor = coalesce(excluded.vendor, asset_software.vendor),
        cpe = coalesce(excluded.cpe, asset_software.cpe),
        purl = coalesce(excluded.purl, asset_software.purl),
        last_seen_at = greatest(asset_software.last_seen_at, excluded.last_seen_at)`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  }
}
