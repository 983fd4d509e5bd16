import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import type { JsonArrayOf } from '../../lib/json-rows.js';
import { clearStaged, importsStagedIn } from '../imports/staging.js';
import { rankingCvssScore } from './queries.js';

type Db = Kysely<DB> | Transaction<DB>;

/** What a report says about a vulnerability, checked and capped; the merge reads these fields. */
export interface StagedVulnerabilityInput {
  ruleId: string;
  cveIds: string[];
  aliases: string[];
  title: string;
  description?: string;
  solution?: string;
  cweIds: string[];
  severity: Severity;
  cvss2Vector?: string;
  cvss2Score?: number;
  cvss3Vector?: string;
  cvss3Score?: number;
  cvss4Vector?: string;
  cvss4Score?: number;
  references: string[];
  publishedAt?: string;
}

/** A vulnerability a report names, under its key (vulnerabilityKey), staged while the report streams in. */
export interface StagedVulnerability {
  key: string;
  input: StagedVulnerabilityInput;
}

/**
 * The vulnerabilities' side of a scanner-report import: the report's vulnerabilities staged in
 * import_vulnerabilities, then upserted into the knowledge base set-based inside the import's
 * one transaction.
 */
export class VulnerabilityImportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  // One JSON parameter per batch, as the findings are staged: a report names up to one
  // vulnerability per finding, and four bound parameters each cost more than the insert.
  async stage(organizationId: string, importId: string, vulnerabilities: JsonArrayOf<StagedVulnerability>) {
    if (vulnerabilities === '[]') return;
    await sql`
      insert into import_vulnerabilities (organization_id, import_id, vulnerability_key, input)
      select ${organizationId}::uuid, ${importId}::uuid, r.key, r.input
      from jsonb_to_recordset(${vulnerabilities}::jsonb) as r(key text, input jsonb)
      on conflict (organization_id, import_id, vulnerability_key) do nothing`.execute(this.db);
  }

  /** Upserts the staged vulnerabilities into the knowledge base, set-based, and notes their ids. */
  async merge(organizationId: string, importId: string, source: string, at: Date, trx: Db): Promise<void> {
    await sql`
      with staged as (
        select vulnerability_key as key, input from import_vulnerabilities
        where organization_id = ${organizationId} and import_id = ${importId}
      )
        insert into vulnerabilities (organization_id, id, key, source, plugin_id, cve_ids, aliases, title,
          description, solution, cwe_ids, severity, cvss2_vector, cvss2_score, cvss3_vector, cvss3_score,
          cvss4_vector, cvss4_score,
          reference_urls, published_at, created_at, updated_at)
        select ${organizationId}::uuid, rampart_uuidv7(), key, ${source}::text, input->>'ruleId',
          array(select jsonb_array_elements_text(coalesce(input->'cveIds', '[]'))),
          array(select jsonb_array_elements_text(coalesce(input->'aliases', '[]'))),
          input->>'title', input->>'description', input->>'solution',
          array(select jsonb_array_elements_text(coalesce(input->'cweIds', '[]'))),
          input->>'severity', input->>'cvss2Vector', (input->>'cvss2Score')::numeric,
          input->>'cvss3Vector', (input->>'cvss3Score')::numeric,
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
          cvss2_vector = coalesce(vulnerabilities.cvss2_vector, excluded.cvss2_vector),
          cvss2_score = coalesce(vulnerabilities.cvss2_score, excluded.cvss2_score),
          cvss3_vector = coalesce(vulnerabilities.cvss3_vector, excluded.cvss3_vector),
          cvss3_score = coalesce(vulnerabilities.cvss3_score, excluded.cvss3_score),
          cvss4_vector = coalesce(vulnerabilities.cvss4_vector, excluded.cvss4_vector),
          cvss4_score = coalesce(vulnerabilities.cvss4_score, excluded.cvss4_score),
          published_at = coalesce(vulnerabilities.published_at, excluded.published_at),
          updated_at = excluded.updated_at
        -- Only where the report adds something: rewriting an unchanged vulnerability costs a new
        -- row version and its index entries (80,000 of them in a Trivy re-import, bench:import).
        where not (excluded.cve_ids <@ vulnerabilities.cve_ids and excluded.aliases <@ vulnerabilities.aliases
            and excluded.cwe_ids <@ vulnerabilities.cwe_ids and excluded.reference_urls <@ vulnerabilities.reference_urls)
          or (vulnerabilities.description is null and excluded.description is not null)
          or (vulnerabilities.solution is null and excluded.solution is not null)
          or (vulnerabilities.plugin_id is null and excluded.plugin_id is not null)
          or (vulnerabilities.cvss2_vector is null and excluded.cvss2_vector is not null)
          or (vulnerabilities.cvss2_score is null and excluded.cvss2_score is not null)
          or (vulnerabilities.cvss3_vector is null and excluded.cvss3_vector is not null)
          or (vulnerabilities.cvss3_score is null and excluded.cvss3_score is not null)
          or (vulnerabilities.cvss4_vector is null and excluded.cvss4_vector is not null)
          or (vulnerabilities.cvss4_score is null and excluded.cvss4_score is not null)
          or (vulnerabilities.published_at is null and excluded.published_at is not null)`.execute(trx);
    // Every staged vulnerability's id, written or left as it was, by its key.
    await sql`
      update import_vulnerabilities s set vulnerability_id = v.id
      from vulnerabilities v
      where s.organization_id = ${organizationId} and s.import_id = ${importId}
        and v.organization_id = s.organization_id and v.key = s.vulnerability_key`.execute(trx);
  }

  /**
   * The import's merged vulnerabilities by key, with what their findings' risk score and due
   * date read (after enrichment): the CVSS score that ranks (rankingCvssScore), EPSS, KEV. In pages by
   * key, so that a report naming 80,000 vulnerabilities is never all in memory at once.
   */
  async *merged(organizationId: string, importId: string, trx: Db, pageSize = 10_000) {
    // Staging tables fill up within seconds; without fresh statistics the planner takes them for
    // empty and joins them row by row (bench:import).
    await sql`analyze import_vulnerabilities`.execute(trx);
    let after = '';
    for (;;) {
      const { rows } = await sql<{
        key: string;
        id: string;
        cvss_score: string | null;
        epss_percentile: string | null;
        kev: boolean;
        kev_due_date: string | null;
      }>`
        select s.vulnerability_key as key, v.id, ${rankingCvssScore('v')} as cvss_score,
          v.epss_percentile, v.kev, v.kev_due_date
        from import_vulnerabilities s
        join vulnerabilities v on v.organization_id = s.organization_id and v.id = s.vulnerability_id
        where s.organization_id = ${organizationId} and s.import_id = ${importId} and s.vulnerability_key > ${after}
        order by s.vulnerability_key
        limit ${pageSize}`.execute(trx);
      if (rows.length > 0)
        yield rows.map((r) => ({
          key: r.key,
          id: r.id,
          cvssScore: r.cvss_score,
          epssPercentile: r.epss_percentile,
          kev: r.kev,
          kevDueDate: r.kev_due_date,
        }));
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  /** The imports that have rows staged here: what a sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return importsStagedIn(this.db, ['import_vulnerabilities']);
  }

  clear(organizationId: string, importId: string, db: Db = this.db): Promise<void> {
    return clearStaged(db, ['import_vulnerabilities'], organizationId, importId);
  }
}
