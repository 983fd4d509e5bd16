import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import {
  type CveConfigurationsRecord,
  type CveIntel,
  FEED_NAMES,
  type FeedName,
  type FeedStatus,
  type IntelLoad,
  type OsvPackageAdvisory,
  type SyncSourceProgress,
  type SyncSourceState,
} from './types.js';

const SYNC_SOURCE_COLUMNS = [
  'source',
  'synced_until as syncedUntil',
  'window_start as windowStart',
  'window_end as windowEnd',
  'next_index as nextIndex',
  'total_results as totalResults',
  'last_started_at as lastStartedAt',
  'last_finished_at as lastFinishedAt',
  'last_success_at as lastSuccessAt',
  'last_error as lastError',
] as const;

/** A CVE as stored: the feed's record with the CVSS chosen for scoring pulled out. */
export interface CveRow {
  cve_id: string;
  feed: 'nvd' | 'cve5';
  status: string | null;
  rejected: boolean;
  description: string | null;
  published_at: string | null;
  modified_at: string | null;
  cvss: unknown[];
  cvss2_vector: string | null;
  cvss2_score: number | null;
  cvss3_vector: string | null;
  cvss3_score: number | null;
  cvss4_vector: string | null;
  cvss4_score: number | null;
  cwe_ids: string[];
  reference_urls: string[];
  configurations: unknown[];
  content_hash: string;
}

export interface KevRow {
  cve_id: string;
  vendor: string | null;
  product: string | null;
  name: string | null;
  description: string | null;
  date_added: string;
  due_date: string | null;
  required_action: string | null;
  known_ransomware: boolean;
  notes: string | null;
  cwe_ids: string[];
  content_hash: string;
}

export interface EpssRow {
  cve_id: string;
  score: number;
  percentile: number;
  score_date: string | null;
}

export interface OsvRow {
  id: string;
  aliases: string[];
  upstream: string[];
  related: string[];
  summary: string | null;
  details: string | null;
  published_at: string | null;
  modified_at: string;
  withdrawn_at: string | null;
  severity: string | null;
  cvss: unknown[];
  cvss3_vector: string | null;
  cvss3_score: number | null;
  cwe_ids: string[];
  reference_urls: string[];
  affected: unknown[];
  packages: string[];
  content_hash: string;
}

/** What one batch did: rows new to the table, rows that changed, rows already as given. */
export interface UpsertCounts {
  added: number;
  updated: number;
}

/** How a load ended: its counts, warnings and error, as the load then shows them. */
export type LoadFinish = Pick<
  IntelLoad,
  'dataDate' | 'added' | 'updated' | 'unchanged' | 'skipped' | 'warnings' | 'error'
> & { state: 'Completed' | 'Failed'; finishedAt: Date };

/** What an upsert's `written` rows (each `returning (xmax = 0) as inserted`) added and updated. */
const COUNT_WRITTEN = sql`select count(*) filter (where inserted) as added, count(*) filter (where not inserted) as updated
  from written`;

const FEED_TABLES: Record<FeedName, ReturnType<typeof sql>> = {
  nvd: sql`(select count(*) from intel_cves where feed = 'nvd')`,
  cve5: sql`(select count(*) from intel_cves where feed = 'cve5')`,
  kev: sql`(select count(*) from intel_kev)`,
  epss: sql`(select count(*) from intel_epss)`,
  osv: sql`(select count(*) from intel_osv)`,
};

/**
 * Public intelligence is the same for every organisation: these tables have no organization_id
 * and hold no tenant's data. Writes are set-based (one statement per batch) and skip rows whose
 * content did not change, so loading the same file twice writes nothing.
 */
export class IntelRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async upsertCves(rows: CveRow[], source: string, loadedAt: Date): Promise<UpsertCounts> {
    if (rows.length === 0) return { added: 0, updated: 0 };
    const result = await sql<{ added: string; updated: string }>`
      with input as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(cve_id text, feed text, status text,
          rejected boolean, description text, published_at timestamptz, modified_at timestamptz, cvss jsonb,
          cvss2_vector text, cvss2_score numeric, cvss3_vector text, cvss3_score numeric, cvss4_vector text,
          cvss4_score numeric, cwe_ids text[], reference_urls text[], configurations jsonb, content_hash text)
      ), written as (
        insert into intel_cves (cve_id, feed, status, rejected, description, published_at, modified_at, cvss,
          cvss2_vector, cvss2_score, cvss3_vector, cvss3_score, cvss4_vector, cvss4_score, cwe_ids, reference_urls,
          configurations, content_hash, source, loaded_at)
        select distinct on (cve_id, feed) cve_id, feed, status, rejected, description, published_at, modified_at, cvss,
          cvss2_vector, cvss2_score, cvss3_vector, cvss3_score, cvss4_vector, cvss4_score, cwe_ids, reference_urls,
          configurations, content_hash, ${source}::text, ${loadedAt}::timestamptz
        from input order by cve_id, feed, modified_at desc nulls last
        on conflict (cve_id, feed) do update set
          status = excluded.status, rejected = excluded.rejected, description = excluded.description,
          published_at = excluded.published_at, modified_at = excluded.modified_at, cvss = excluded.cvss,
          cvss2_vector = excluded.cvss2_vector, cvss2_score = excluded.cvss2_score,
          cvss3_vector = excluded.cvss3_vector, cvss3_score = excluded.cvss3_score,
          cvss4_vector = excluded.cvss4_vector, cvss4_score = excluded.cvss4_score,
          cwe_ids = excluded.cwe_ids, reference_urls = excluded.reference_urls,
          configurations = excluded.configurations, content_hash = excluded.content_hash,
          source = excluded.source, loaded_at = excluded.loaded_at
        -- An older copy of a record (a stale mirror, an old file) never replaces a newer one.
        where intel_cves.content_hash <> excluded.content_hash
          and (intel_cves.modified_at is null or excluded.modified_at is null
            or excluded.modified_at >= intel_cves.modified_at)
        returning (xmax = 0) as inserted
      )
      ${COUNT_WRITTEN}`.execute(this.db);
    return counts(result.rows[0]);
  }

  async upsertKev(rows: KevRow[], source: string, loadedAt: Date): Promise<UpsertCounts> {
    if (rows.length === 0) return { added: 0, updated: 0 };
    const result = await sql<{ added: string; updated: string }>`
      with input as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(cve_id text, vendor text, product text,
          name text, description text, date_added date, due_date date, required_action text,
          known_ransomware boolean, notes text, cwe_ids text[], content_hash text)
      ), written as (
        insert into intel_kev (cve_id, vendor, product, name, description, date_added, due_date, required_action,
          known_ransomware, notes, cwe_ids, content_hash, source, loaded_at)
        select distinct on (cve_id) cve_id, vendor, product, name, description, date_added, due_date, required_action,
          known_ransomware, notes, cwe_ids, content_hash, ${source}::text, ${loadedAt}::timestamptz
        from input order by cve_id
        on conflict (cve_id) do update set
          vendor = excluded.vendor, product = excluded.product, name = excluded.name,
          description = excluded.description, date_added = excluded.date_added, due_date = excluded.due_date,
          required_action = excluded.required_action, known_ransomware = excluded.known_ransomware,
          notes = excluded.notes, cwe_ids = excluded.cwe_ids, content_hash = excluded.content_hash,
          source = excluded.source, loaded_at = excluded.loaded_at
        where intel_kev.content_hash <> excluded.content_hash
        returning (xmax = 0) as inserted
      )
      ${COUNT_WRITTEN}`.execute(this.db);
    return counts(result.rows[0]);
  }

  /** KEV facts an NVD record carries, for CVEs the catalogue itself has not been loaded for. */
  async addKevFromNvd(rows: KevRow[], source: string, loadedAt: Date): Promise<number> {
    if (rows.length === 0) return 0;
    const result = await sql`
      insert into intel_kev (cve_id, name, date_added, due_date, required_action, known_ransomware, cwe_ids,
        content_hash, source, loaded_at)
      select distinct on (cve_id) cve_id, name, date_added, due_date, required_action, false, '{}', content_hash,
        ${source}::text, ${loadedAt}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(cve_id text, name text, date_added date,
        due_date date, required_action text, content_hash text)
      order by cve_id
      on conflict (cve_id) do nothing`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  async upsertEpss(rows: EpssRow[], source: string, loadedAt: Date): Promise<UpsertCounts> {
    if (rows.length === 0) return { added: 0, updated: 0 };
    const result = await sql<{ added: string; updated: string }>`
      with input as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(cve_id text, score numeric,
          percentile numeric, score_date date)
      ), written as (
        insert into intel_epss (cve_id, score, percentile, score_date, source, loaded_at)
        select distinct on (cve_id) cve_id, score, percentile, score_date, ${source}::text, ${loadedAt}::timestamptz
        from input order by cve_id
        on conflict (cve_id) do update set
          score = excluded.score, percentile = excluded.percentile, score_date = excluded.score_date,
          source = excluded.source, loaded_at = excluded.loaded_at
        where (intel_epss.score, intel_epss.percentile) is distinct from (excluded.score, excluded.percentile)
          and (intel_epss.score_date is null or excluded.score_date is null
            or excluded.score_date >= intel_epss.score_date)
        returning (xmax = 0) as inserted
      )
      ${COUNT_WRITTEN}`.execute(this.db);
    return counts(result.rows[0]);
  }

  async upsertOsv(rows: OsvRow[], source: string, loadedAt: Date): Promise<UpsertCounts> {
    if (rows.length === 0) return { added: 0, updated: 0 };
    const result = await sql<{ added: string; updated: string }>`
      with input as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id text, aliases text[], upstream text[], related text[], summary text,
          details text, published_at timestamptz, modified_at timestamptz, withdrawn_at timestamptz, severity text,
          cvss jsonb, cvss3_vector text, cvss3_score numeric, cwe_ids text[], reference_urls text[], affected jsonb,
          packages text[], content_hash text)
      ), written as (
        insert into intel_osv (id, aliases, upstream, related, summary, details, published_at, modified_at, withdrawn_at,
          severity, cvss, cvss3_vector, cvss3_score, cwe_ids, reference_urls, affected, packages, content_hash, source,
          loaded_at)
        select distinct on (id) id, aliases, upstream, related, summary, details, published_at, modified_at, withdrawn_at, severity, cvss,
          cvss3_vector, cvss3_score, cwe_ids, reference_urls, affected, packages, content_hash, ${source}::text,
          ${loadedAt}::timestamptz
        from input order by id, modified_at desc
        on conflict (id) do update set
          aliases = excluded.aliases, upstream = excluded.upstream, related = excluded.related, summary = excluded.summary, details = excluded.details,
          published_at = excluded.published_at, modified_at = excluded.modified_at,
          withdrawn_at = excluded.withdrawn_at, severity = excluded.severity, cvss = excluded.cvss,
          cvss3_vector = excluded.cvss3_vector, cvss3_score = excluded.cvss3_score, cwe_ids = excluded.cwe_ids,
          reference_urls = excluded.reference_urls, affected = excluded.affected, packages = excluded.packages,
          content_hash = excluded.content_hash, source = excluded.source, loaded_at = excluded.loaded_at
        where intel_osv.content_hash <> excluded.content_hash and excluded.modified_at >= intel_osv.modified_at
        returning (xmax = 0) as inserted
      )
      ${COUNT_WRITTEN}`.execute(this.db);
    return counts(result.rows[0]);
  }

  async startLoad(id: string, feed: FeedName, source: string, startedAt: Date): Promise<void> {
    await this.db
      .insertInto('intel_loads')
      .values({ id, feed, source, state: 'Running', warnings: '[]', started_at: startedAt })
      .execute();
  }

  async finishLoad(id: string, f: LoadFinish): Promise<void> {
    await this.db
      .updateTable('intel_loads')
      .set({
        state: f.state,
        data_date: f.dataDate,
        added: f.added,
        updated: f.updated,
        unchanged: f.unchanged,
        skipped: f.skipped,
        warnings: JSON.stringify(f.warnings.slice(0, 100)),
        error: f.error,
        finished_at: f.finishedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Loads a stopped process left Running can never finish. */
  async failInterruptedLoads(before: Date, at: Date): Promise<number> {
    const result = await this.db
      .updateTable('intel_loads')
      .set({
        state: 'Failed',
        error: 'The process loading this feed stopped before it finished.',
        finished_at: at,
      })
      .where('state', '=', 'Running')
      .where('started_at', '<', before)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Per feed: records held, the last load of any outcome and the last that completed. */
  async feedStatus(): Promise<FeedStatus> {
    const counts = await sql<Record<FeedName, string>>`
      select ${sql.join(FEED_NAMES.map((f) => sql`${FEED_TABLES[f]} as ${sql.ref(f)}`))}`.execute(this.db);
    const lastLoads = await sql<IntelLoad>`
      select distinct on (feed) ${sql.raw(LOAD_COLUMNS)} from intel_loads order by feed, started_at desc, id desc`.execute(
      this.db,
    );
    const lastCompleted = await sql<IntelLoad>`
      select distinct on (feed) ${sql.raw(LOAD_COLUMNS)} from intel_loads where state = 'Completed'
      order by feed, finished_at desc, id desc`.execute(this.db);
    const sync = await this.db
      .selectFrom('intel_sync_lease')
      .select([
        'last_started_at as lastStartedAt',
        'last_finished_at as lastFinishedAt',
        'last_errors as lastErrors',
      ])
      .where('id', '=', 1)
      .executeTakeFirst();
    // What the completed loads said their files' dates were (each feed in its own form).
    const statedDates = await sql<{ feed: FeedName; dataDate: string }>`
      select distinct feed, data_date as "dataDate" from intel_loads where state = 'Completed' and data_date is not null`.execute(
      this.db,
    );
    // Files without a stated date (CVE 5 records, OSV advisories, single NVD records) are as
    // current as their newest record. Not KEV: entries NVD records bring are no catalogue version.
    const newest = await sql<Record<'nvd' | 'cve5' | 'epss' | 'osv', Date | string | null>>`
      select (select max(modified_at) from intel_cves where feed = 'nvd') as nvd,
        (select max(modified_at) from intel_cves where feed = 'cve5') as cve5,
        (select max(score_date) from intel_epss) as epss,
        (select max(modified_at) from intel_osv) as osv`.execute(this.db);
    const held = counts.rows[0];
    const sources = await this.syncSources();
    return {
      sources,
      counts: Object.fromEntries(FEED_NAMES.map((f) => [f, Number(held?.[f] ?? 0)])) as Record<
        FeedName,
        number
      >,
      lastLoads: lastLoads.rows,
      lastCompleted: lastCompleted.rows,
      sync,
      statedDates: statedDates.rows,
      newestRecords: newest.rows[0],
    };
  }

  async loads(limit: number): Promise<IntelLoad[]> {
    const result = await sql<IntelLoad>`
      select ${sql.raw(LOAD_COLUMNS)} from intel_loads order by started_at desc, id desc limit ${limit}`.execute(
      this.db,
    );
    return result.rows;
  }

  async findLoad(id: string): Promise<IntelLoad | undefined> {
    const result = await sql<IntelLoad>`
      select ${sql.raw(LOAD_COLUMNS)} from intel_loads where id = ${id}`.execute(this.db);
    return result.rows[0];
  }

  async anyLoad(): Promise<boolean> {
    const row = await this.db.selectFrom('intel_loads').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Records that a sync started (the feed status's LastSync). The sync's schedule (src/jobs) makes
   * one instance sync per period; the row's holder and lease columns are no longer used.
   */
  async recordSyncStarted(now: Date): Promise<void> {
    await this.db.updateTable('intel_sync_lease').set({ last_started_at: now }).where('id', '=', 1).execute();
  }

  async recordSyncFinished(now: Date, errors: { url: string; error: string }[]): Promise<void> {
    await this.db
      .updateTable('intel_sync_lease')
      .set({ last_finished_at: now, last_errors: JSON.stringify(errors) })
      .where('id', '=', 1)
      .execute();
  }

  async syncSource(source: string): Promise<SyncSourceState | undefined> {
    return this.db
      .selectFrom('intel_sync_sources')
      .select(SYNC_SOURCE_COLUMNS)
      .where('source', '=', source)
      .executeTakeFirst();
  }

  async syncSources(): Promise<SyncSourceState[]> {
    return this.db.selectFrom('intel_sync_sources').select(SYNC_SOURCE_COLUMNS).orderBy('source').execute();
  }

  /** One statement: a step of the sync is committed whole or not at all. */
  async saveSyncSource(source: string, p: SyncSourceProgress): Promise<void> {
    const set = {
      ...(p.syncedUntil !== undefined && { synced_until: p.syncedUntil }),
      ...(p.windowStart !== undefined && { window_start: p.windowStart }),
      ...(p.windowEnd !== undefined && { window_end: p.windowEnd }),
      ...(p.nextIndex !== undefined && { next_index: p.nextIndex }),
      ...(p.totalResults !== undefined && { total_results: p.totalResults }),
      ...(p.lastStartedAt !== undefined && { last_started_at: p.lastStartedAt }),
      ...(p.lastFinishedAt !== undefined && { last_finished_at: p.lastFinishedAt }),
      ...(p.lastSuccessAt !== undefined && { last_success_at: p.lastSuccessAt }),
      ...(p.lastError !== undefined && { last_error: p.lastError }),
    };
    if (Object.keys(set).length === 0) return;
    await this.db
      .insertInto('intel_sync_sources')
      .values({ source, ...set })
      .onConflict((oc) => oc.column('source').doUpdateSet(set))
      .execute();
  }

  /** Warnings found before a load began (an OSV zip's entries left out), put first. */
  async addLoadWarnings(id: string, warnings: string[]): Promise<void> {
    await sql`update intel_loads set warnings = ${JSON.stringify(warnings)}::jsonb || warnings where id = ${id}`.execute(
      this.db,
    );
  }

  /** Everything known about one CVE, each feed's record of it. */
  async cve(cveId: string): Promise<CveIntel> {
    const [records, kev, epss, osv] = await Promise.all([
      this.db
        .selectFrom('intel_cves')
        .select([
          'cve_id as cveId',
          'feed',
          'status',
          'rejected',
          'description',
          'published_at as publishedAt',
          'modified_at as modifiedAt',
          'cvss',
          'cvss2_vector as cvss2Vector',
          'cvss2_score as cvss2Score',
          'cvss3_vector as cvss3Vector',
          'cvss3_score as cvss3Score',
          'cvss4_vector as cvss4Vector',
          'cvss4_score as cvss4Score',
          'cwe_ids as cweIds',
          'reference_urls as referenceUrls',
          'configurations',
          'source',
          'loaded_at as loadedAt',
        ])
        .where('cve_id', '=', cveId)
        .orderBy(sql`feed = 'nvd'`, 'desc')
        .execute(),
      this.db
        .selectFrom('intel_kev')
        .select([
          'cve_id as cveId',
          'vendor',
          'product',
          'name',
          'description',
          'date_added as dateAdded',
          'due_date as dueDate',
          'required_action as requiredAction',
          'known_ransomware as knownRansomware',
          'notes',
          'cwe_ids as cweIds',
          'source',
          'loaded_at as loadedAt',
        ])
        .where('cve_id', '=', cveId)
        .executeTakeFirst(),
      this.db
        .selectFrom('intel_epss')
        .select([
          'cve_id as cveId',
          'score',
          'percentile',
          'score_date as scoreDate',
          'source',
          'loaded_at as loadedAt',
        ])
        .where('cve_id', '=', cveId)
        .executeTakeFirst(),
      this.db
        .selectFrom('intel_osv')
        .select([
          'id',
          'summary',
          'modified_at as modifiedAt',
          'packages',
          'affected',
          'source',
          'loaded_at as loadedAt',
        ])
        .where(sql<boolean>`(aliases @> array[${cveId}]::text[] or upstream @> array[${cveId}]::text[])`)
        .orderBy('id')
        .limit(50)
        .execute(),
    ]);
    // numeric columns arrive as strings.
    const score = (n: string | null) => (n === null ? null : Number(n));
    return {
      records: records.map((r) => ({
        ...r,
        cvss2Score: score(r.cvss2Score),
        cvss3Score: score(r.cvss3Score),
        cvss4Score: score(r.cvss4Score),
      })),
      kev,
      epss: epss && { ...epss, score: Number(epss.score), percentile: Number(epss.percentile) },
      osv,
    };
  }

  /**
   * Every CVE's CPE configurations, a page at a time (the matcher is built from them): NVD's
   * where both feeds have the CVE, a CVE 5 record's otherwise; rejected CVEs left out.
   */
  async configurationsPage(afterCveId: string | null, limit: number): Promise<CveConfigurationsRecord[]> {
    const result = await sql<CveConfigurationsRecord>`
      select distinct on (cve_id) cve_id as "cveId", configurations from intel_cves
      where not rejected and jsonb_array_length(configurations) > 0
        ${afterCveId === null ? sql`` : sql`and cve_id > ${afterCveId}`}
      order by cve_id, (feed = 'nvd') desc
      limit ${limit}`.execute(this.db);
    return result.rows;
  }

  /** OSV advisories naming a package (ecosystem:name, normalised). */
  async osvForPackages(keys: string[]): Promise<OsvPackageAdvisory[]> {
    if (keys.length === 0) return [];
    const result = await sql<OsvPackageAdvisory>`
      select id, aliases, upstream, related, affected, withdrawn_at as "withdrawnAt" from intel_osv
      where packages && ${keys}::text[]`.execute(this.db);
    return result.rows;
  }

  /** The CVE ids whose intelligence a load wrote (its rows carry the load's time). */
  async cveIdsLoadedAt(loadedAt: Date): Promise<string[]> {
    const result = await sql<{ cve_id: string }>`
      select cve_id from intel_cves where loaded_at = ${loadedAt}::timestamptz
      union select cve_id from intel_kev where loaded_at = ${loadedAt}::timestamptz
      union select cve_id from intel_epss where loaded_at = ${loadedAt}::timestamptz
      union select unnest(aliases || upstream) from intel_osv where loaded_at = ${loadedAt}::timestamptz`.execute(
      this.db,
    );
    return result.rows.map((r) => r.cve_id);
  }
}

const LOAD_COLUMNS =
  'id, feed, source, state, data_date as "dataDate", added, updated, unchanged, skipped, warnings, error, started_at as "startedAt", finished_at as "finishedAt"';

function counts(row: { added: string; updated: string } | undefined): UpsertCounts {
  return { added: Number(row?.added ?? 0), updated: Number(row?.updated ?? 0) };
}
