import { expressionBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * The vulnerability columns other modules may read, as a relation to join under an alias of their
 * choice, for listings that show, filter or score by them and must stay one query (findings).
 * PostgreSQL pulls the subquery up into the join, so the plan is that of a plain join.
 */
export function joinableVulnerabilities<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('vulnerabilities')
    .select([
      'organization_id',
      'id',
      'key',
      'cve_ids',
      'kev',
      'kev_due_date',
      'epss_score',
      'epss_percentile',
      'cvss2_score',
      'cvss3_score',
      'cvss3_vector',
      'cvss4_score',
      'plugin_id',
      'solution',
    ])
    .as(alias);
}

/** The vulnerability joined as `alias` names the CVE (any case). */
export function vulnerabilityHasCve(alias: string, cve: string) {
  return sql<boolean>`${sql.ref(`${alias}.cve_ids`)} @> array[${cve.toUpperCase()}]::text[]`;
}

/**
 * The CVSS score a vulnerability (`alias`, this module's table or its joinable relation) is
 * ranked by: the highest version that scored it, v4.0, else v3.x, else v2.0 (rankingCvss in
 * src/intel/cvss/cvss.ts is the same rule for what is already read).
 */
export function rankingCvssScore(alias: string) {
  const col = (c: string) => sql.ref(`${alias}.${c}`);
  return sql<string | null>`coalesce(${col('cvss4_score')}, ${col('cvss3_score')}, ${col('cvss2_score')})`;
}
