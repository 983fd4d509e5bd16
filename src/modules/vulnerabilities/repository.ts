import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';

const COLUMNS = [
  'id',
  'organization_id',
  'key',
  'source',
  'plugin_id',
  'cve_ids',
  'aliases',
  'title',
  'description',
  'solution',
  'cwe_ids',
  'severity',
  'cvss3_vector',
  'cvss3_score',
  'cvss4_vector',
  'cvss4_score',
  'epss_score',
  'epss_percentile',
  'kev',
  'kev_due_date',
  'reference_urls',
  'published_at',
  'modified_at',
  'created_at',
  'updated_at',
] as const;

export type VulnerabilityRow = Awaited<ReturnType<VulnerabilityRepository['findById']>> & {};

export interface VulnerabilityWrite {
  key: string;
  source: string;
  pluginId: string | null;
  cveIds: string[];
  aliases: string[];
  title: string;
  description: string | null;
  solution: string | null;
  cweIds: string[];
  severity: Severity;
  cvss3Vector: string | null;
  cvss3Score: number | null;
  references: string[];
  epssScore: number | null;
  epssPercentile: number | null;
  kev: boolean;
  kevDueDate: string | null;
}

type Db = Kysely<DB> | Transaction<DB>;

export class VulnerabilityRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findById(organizationId: string, id: string, db: Db = this.db) {
    return db
      .selectFrom('vulnerabilities')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findByPluginId(organizationId: string, pluginId: string) {
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
  upsert(organizationId: string, id: string, v: VulnerabilityWrite, db: Db = this.db) {
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
          updated_at: sql`now()`,
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
  ) {
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
}
