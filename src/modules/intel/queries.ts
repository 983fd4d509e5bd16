import { sql } from 'kysely';

type CvssVersion = 'cvss2' | 'cvss3' | 'cvss4';

/** The highest score of one CVSS version over the CVEs, NVD's analysis first on a tie. */
function bestCvss(version: CvssVersion, cveIds: ReturnType<typeof sql.ref>) {
  const vector = sql.ref(`c.${version}_vector`);
  const score = sql.ref(`c.${version}_score`);
  return sql`left join lateral (
        select ${vector} as vector, ${score} as score from intel_cves c
        where c.cve_id = any(${cveIds}) and ${score} is not null and not c.rejected
        order by ${score} desc, (c.feed = 'nvd') desc limit 1) ${sql.ref(version)} on true`;
}

/**
 * Public intelligence about each row's CVEs, as lateral joins for a set-based update of another
 * module (vulnerabilities copy it into their own columns in one statement). `cveIds` names the
 * row's text[] column of CVE ids; the joins add the relations
 * - `cvss2`, `cvss3`, `cvss4` (vector, score): the highest score of that version over the CVEs;
 * - `epss` (score, percentile): the highest over the CVEs, no row when none has one;
 * - `kev` (cve_id, due_date, date_added): the listed CVE with the earliest due date;
 * - `cve` (description, published_at, modified_at, cwe_ids, reference_urls): the first CVE's
 *   record, NVD's first.
 */
export function intelOfCves(cveIds: string) {
  const ids = sql.ref(cveIds);
  return sql`${bestCvss('cvss2', ids)}
        ${bestCvss('cvss3', ids)}
        ${bestCvss('cvss4', ids)}
        left join lateral (
          select max(e.score) as score, max(e.percentile) as percentile from intel_epss e
          where e.cve_id = any(${ids}) having count(*) > 0) epss on true
        left join lateral (
          select k.cve_id, k.due_date, k.date_added from intel_kev k where k.cve_id = any(${ids})
          order by k.due_date nulls last limit 1) kev on true
        left join lateral (
          select c.description, c.published_at, c.modified_at, c.cwe_ids, c.reference_urls from intel_cves c
          where c.cve_id = ${ids}[1] order by (c.feed = 'nvd') desc limit 1) cve on true`;
}
