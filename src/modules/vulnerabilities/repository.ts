import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { intelOfCves } from '../intel/queries.js';
import type { Vulnerability } from './types.js';

/** Every column, under its domain name: rows come out as Vulnerability with no mapping. */
const COLUMNS = [
  'id',
  'organization_id as organizationId',
  'key',
  'source',
  'plugin_id as pluginId',
  'cve_ids as cveIds',
  'aliases',
  'title',
  'description',
  'solution',
  'cwe_ids as cweIds',
  'severity',
  'cvss3_vector as cvss3Vector',
  'cvss3_score as cvss3Score',
  'cvss4_vector as cvss4Vector',
  'cvss4_score as cvss4Score',
  'epss_score as epssScore',
  'epss_percentile as epssPercentile',
  'kev',
  'kev_due_date as kevDueDate',
  'kev_date_added as kevDateAdded',
  'cvss2_vector as cvss2Vector',
  'cvss2_score as cvss2Score',
  'intel_at as intelAt',
  'reference_urls as references',
  'published_at as publishedAt',
  'modified_at as modifiedAt',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

/** A vulnerability as a write gives it: its identity and what reports say, scores as numbers. */
export type VulnerabilityWrite = Pick<
  Vulnerability,
  | 'key'
  | 'source'
  | 'pluginId'
  | 'cveIds'
  | 'aliases'
  | 'title'
  | 'description'
  | 'solution'
  | 'cweIds'
  | 'severity'
  | 'cvss3Vector'
  | 'references'
  | 'kev'
  | 'kevDueDate'
> & { cvss3Score: number | null; epssScore: number | null; epssPercentile: number | null };

type Db = Kysely<DB> | Transaction<DB>;

export class VulnerabilityRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findById(organizationId: string, id: string, db: Db = this.db): Promise<Vulnerability | undefined> {
    return db
      .selectFrom('vulnerabilities')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findByPluginId(organizationId: string, pluginId: string): Promise<Vulnerability | undefined> {
    return this.db
      .selectFrom('vulnerabilities')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('plugin_id', '=', pluginId)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /** Inserts, or folds new aliases and references into the entry with the same key. */
  upsert(
    organizationId: string,
    id: string,
    at: Date,
    v: VulnerabilityWrite,
    db: Db = this.db,
  ): Promise<Vulnerability> {
    return db
      .insertInto('vulnerabilities')
      .values({
        organization_id: organizationId,
        id,
        key: v.key,
        source: v.source,
        plugin_id: v.pluginId,
        cve_ids: v.cveIds,
        aliases: v.aliases,
        title: v.title,
        description: v.description,
        solution: v.solution,
        cwe_ids: v.cweIds,
        severity: v.severity,
        cvss3_vector: v.cvss3Vector,
        cvss3_score: v.cvss3Score,
        reference_urls: v.references,
        epss_score: v.epssScore,
        epss_percentile: v.epssPercentile,
        kev: v.kev,
        kev_due_date: v.kevDueDate,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'key']).doUpdateSet({
          cve_ids: sql`array(select distinct unnest(vulnerabilities.cve_ids || excluded.cve_ids) order by 1)`,
          aliases: sql`array(select distinct unnest(vulnerabilities.aliases || excluded.aliases) order by 1)`,
          cwe_ids: sql`array(select distinct unnest(vulnerabilities.cwe_ids || excluded.cwe_ids) order by 1)`,
          reference_urls: sql`array(select distinct unnest(vulnerabilities.reference_urls || excluded.reference_urls) order by 1)`,
          description: sql`coalesce(vulnerabilities.description, excluded.description)`,
          solution: sql`coalesce(vulnerabilities.solution, excluded.solution)`,
          plugin_id: sql`coalesce(vulnerabilities.plugin_id, excluded.plugin_id)`,
          cvss3_vector: sql`coalesce(vulnerabilities.cvss3_vector, excluded.cvss3_vector)`,
          cvss3_score: sql`coalesce(vulnerabilities.cvss3_score, excluded.cvss3_score)`,
          epss_score: sql`coalesce(excluded.epss_score, vulnerabilities.epss_score)`,
          epss_percentile: sql`coalesce(excluded.epss_percentile, vulnerabilities.epss_percentile)`,
          kev: sql`vulnerabilities.kev or excluded.kev`,
          kev_due_date: sql`coalesce(vulnerabilities.kev_due_date, excluded.kev_due_date)`,
          updated_at: at,
        }),
      )
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  listPage(
    organizationId: string,
    f: { cve?: string; search?: string; kev?: boolean },
    limit: number,
    afterId?: string,
  ): Promise<Vulnerability[]> {
    let q = this.db
      .selectFrom('vulnerabilities')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId);
    if (f.cve) q = q.where(sql<boolean>`cve_ids @> array[${f.cve}]::text[]`);
    if (f.kev !== undefined) q = q.where('kev', '=', f.kev);
    if (f.search) q = q.where('title', 'ilike', `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (afterId) q = q.where('id', '>', afterId);
    return q.orderBy('id').limit(limit).execute();
  }

  /** The organisation's vulnerabilities that carry a CVE (findings' Cve filter). */
  async idsWithCve(organizationId: string, cve: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('vulnerabilities')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where(sql<boolean>`cve_ids @> array[${cve.toUpperCase()}]::text[]`)
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Copies public intelligence into the organisation's vulnerabilities that name a CVE: the
   * highest CVSS of its CVEs per version (NVD's analysis where it has one, else the report's own),
   * the highest EPSS, KEV with the earliest due date, CWE, references, description. Only rows whose
   * values change are written; their ids are returned so their findings can be re-scored.
   */
  async enrichFromIntel(
    organizationId: string,
    scope: EnrichScope,
    at: Date,
    db: Db = this.db,
  ): Promise<string[]> {
    const target =
      'importId' in scope
        ? sql`v.id in (select vulnerability_id from import_vulnerabilities
            where organization_id = ${organizationId} and import_id = ${scope.importId} and vulnerability_id is not null)`
        : 'cveIds' in scope
          ? sql`v.cve_ids && ${scope.cveIds}::text[]`
          : sql`v.id = any(${scope.ids}::uuid[])`;
    const result = await sql<{ id: string }>`
      with target as (
        select v.id, v.cve_ids from vulnerabilities v
        where v.organization_id = ${organizationId} and cardinality(v.cve_ids) > 0 and ${target}
      ), intel as (
        select t.id, cvss2.vector as cvss2_vector, cvss2.score as cvss2_score, cvss3.vector as cvss3_vector,
          cvss3.score as cvss3_score, cvss4.vector as cvss4_vector, cvss4.score as cvss4_score,
          epss.score as epss_score, epss.percentile as epss_percentile,
          kev.due_date as kev_due_date, kev.date_added as kev_date_added, kev.cve_id is not null as kev,
          cve.description, cve.published_at, cve.modified_at, cve.cwe_ids, cve.reference_urls
        from target t
        ${intelOfCves('t.cve_ids')}
      ), merged as (
        select v.id,
          coalesce(i.cvss2_vector, v.cvss2_vector) as cvss2_vector, coalesce(i.cvss2_score, v.cvss2_score) as cvss2_score,
          coalesce(i.cvss3_vector, v.cvss3_vector) as cvss3_vector, coalesce(i.cvss3_score, v.cvss3_score) as cvss3_score,
          coalesce(i.cvss4_vector, v.cvss4_vector) as cvss4_vector, coalesce(i.cvss4_score, v.cvss4_score) as cvss4_score,
          coalesce(i.epss_score, v.epss_score) as epss_score,
          coalesce(i.epss_percentile, v.epss_percentile) as epss_percentile,
          i.kev or v.kev as kev,
          coalesce(i.kev_due_date, v.kev_due_date) as kev_due_date,
          coalesce(i.kev_date_added, v.kev_date_added) as kev_date_added,
          coalesce(v.description, i.description) as description,
          coalesce(v.published_at, i.published_at) as published_at,
          coalesce(i.modified_at, v.modified_at) as modified_at,
          case when cardinality(v.cwe_ids) = 0 then coalesce(i.cwe_ids, '{}') else v.cwe_ids end as cwe_ids,
          (array(select distinct unnest(v.reference_urls || coalesce(i.reference_urls, '{}')) order by 1))[1:100]
            as reference_urls
        from intel i join vulnerabilities v on v.organization_id = ${organizationId} and v.id = i.id
      )
      update vulnerabilities v set
        cvss2_vector = m.cvss2_vector, cvss2_score = m.cvss2_score,
        cvss3_vector = m.cvss3_vector, cvss3_score = m.cvss3_score,
        cvss4_vector = m.cvss4_vector, cvss4_score = m.cvss4_score,
        epss_score = m.epss_score, epss_percentile = m.epss_percentile,
        kev = m.kev, kev_due_date = m.kev_due_date, kev_date_added = m.kev_date_added,
        description = m.description, published_at = m.published_at, modified_at = m.modified_at,
        cwe_ids = m.cwe_ids, reference_urls = m.reference_urls,
        intel_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
      from merged m
      where v.organization_id = ${organizationId} and v.id = m.id
        and (m.cvss2_vector, m.cvss2_score, m.cvss3_vector, m.cvss3_score, m.cvss4_vector, m.cvss4_score, m.epss_score,
            m.epss_percentile, m.kev, m.kev_due_date, m.description, m.cwe_ids, m.reference_urls)
          is distinct from (v.cvss2_vector, v.cvss2_score, v.cvss3_vector, v.cvss3_score, v.cvss4_vector, v.cvss4_score,
            v.epss_score, v.epss_percentile, v.kev, v.kev_due_date, v.description, v.cwe_ids, v.reference_urls)
      returning v.id`.execute(db);
    return result.rows.map((r) => r.id);
  }
}

/** Which vulnerabilities to enrich: one import's, those naming some CVEs, or by id. */
export type EnrichScope = { importId: string } | { cveIds: string[] } | { ids: string[] };
