import { createHash } from 'node:crypto';
import { scoreCvss } from '../../intel/cvss/cvss.js';
import { packageKey } from '../../intel/osv/package-key.js';
import type {
  CveRecord,
  CvssMetric,
  CvssVersion,
  EpssScore,
  KevEntry,
  OsvAdvisory,
} from '../../intel/types.js';
import type { CveRow, EpssRow, KevRow, OsvRow } from './repository.js';

/** A CVSS vector and the library's base score of it. */
interface Scored {
  vector: string;
  score: number;
}

// NVD's own assessment first, then a CNA's or CISA's; the newer minor version first.
function rank(m: CvssMetric): number {
  return (m.type === 'Primary' ? 0 : 2) + (m.source === 'nvd@nist.gov' ? 0 : 1);
}

/**
 * The assessment to score by among a record's metrics of some versions: every vector is checked
 * and scored by the library; an invalid one is reported and passed over, never guessed at; a
 * stated score that differs from the library's is reported and the library's kept.
 */
export function bestCvss(
  metrics: CvssMetric[],
  versions: CvssVersion[],
  id: string,
  warn: (m: string) => void,
): Scored | null {
  const candidates = metrics
    .filter((m) => versions.includes(m.version))
    .sort((a, b) => versions.indexOf(b.version) - versions.indexOf(a.version) || rank(a) - rank(b));
  for (const metric of candidates) {
    const scored = scoreCvss(metric.vector);
    if (!scored.ok) {
      warn(`${id}: CVSS vector ${metric.vector.slice(0, 200)} is not valid (${scored.error}); left out`);
      continue;
    }
    if (Math.abs(scored.baseScore - metric.baseScore) > 0.05)
      warn(
        `${id}: the feed states ${metric.baseScore} for ${scored.vector}; its base score is ${scored.baseScore}`,
      );
    return { vector: scored.vector, score: scored.baseScore };
  }
  return null;
}

function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

function withHash<T extends object>(row: T): T & { content_hash: string } {
  return { ...row, content_hash: hashOf(row) };
}

export function cveRow(r: CveRecord, warn: (m: string) => void): CveRow {
  const v2 = bestCvss(r.cvss, ['2.0'], r.id, warn);
  const v3 = bestCvss(r.cvss, ['3.0', '3.1'], r.id, warn);
  const v4 = bestCvss(r.cvss, ['4.0'], r.id, warn);
  return withHash({
    cve_id: r.id,
    feed: r.feed,
    status: r.status ?? null,
    rejected: r.rejected,
    description: r.description ?? null,
    published_at: r.publishedAt ?? null,
    modified_at: r.modifiedAt ?? null,
    cvss: r.cvss,
    cvss2_vector: v2?.vector ?? null,
    cvss2_score: v2?.score ?? null,
    cvss3_vector: v3?.vector ?? null,
    cvss3_score: v3?.score ?? null,
    cvss4_vector: v4?.vector ?? null,
    cvss4_score: v4?.score ?? null,
    cwe_ids: r.cweIds,
    reference_urls: r.references.slice(0, 200),
    configurations: r.configurations,
  });
}

export function kevRow(k: KevEntry): KevRow {
  return withHash({
    cve_id: k.cveId,
    vendor: k.vendor || null,
    product: k.product || null,
    name: k.name || null,
    description: k.description ?? null,
    date_added: k.dateAdded,
    due_date: k.dueDate || null,
    required_action: k.requiredAction ?? null,
    known_ransomware: k.knownRansomwareUse,
    notes: k.notes ?? null,
    cwe_ids: k.cweIds,
  });
}

/** The KEV facts an NVD record carries (cisaExploitAdd…), for when the catalogue is not loaded. */
export function kevRowFromNvd(r: CveRecord): KevRow | undefined {
  if (!r.kev?.dateAdded) return undefined;
  return withHash({
    cve_id: r.id,
    vendor: null,
    product: null,
    name: r.kev.name ?? null,
    description: null,
    date_added: r.kev.dateAdded,
    due_date: r.kev.dueDate || null,
    required_action: r.kev.requiredAction ?? null,
    known_ransomware: false,
    notes: null,
    cwe_ids: [],
  });
}

export function epssRow(e: EpssScore): EpssRow {
  return { cve_id: e.cveId, score: e.score, percentile: e.percentile, score_date: e.scoreDate ?? null };
}

export function osvRow(a: OsvAdvisory, warn: (m: string) => void): OsvRow {
  const v3 = bestCvss(a.cvss, ['3.0', '3.1'], a.id, warn);
  return withHash({
    id: a.id,
    aliases: a.aliases,
    upstream: a.upstream ?? [],
    related: a.related ?? [],
    summary: a.summary ?? null,
    details: a.details ?? null,
    published_at: a.publishedAt ?? null,
    modified_at: a.modifiedAt,
    withdrawn_at: a.withdrawnAt ?? null,
    severity: a.severity ?? null,
    cvss: a.cvss,
    cvss3_vector: v3?.vector ?? null,
    cvss3_score: v3?.score ?? null,
    cwe_ids: a.cweIds,
    reference_urls: a.references.slice(0, 200),
    affected: a.affected,
    packages: [...new Set(a.affected.map((p) => packageKey(p.ecosystem, p.name)))],
  });
}
