import { cweIdsIn } from '../../parsing/ids.js';
import { asArray, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import {
  cvss2Of,
  cvss3BaseScore,
  cvss3VectorOf,
  cvss4VectorOf,
  cvssScoreOf,
  severityOfCvssScore,
} from '../common/cvss-score.js';
import { unique } from '../common/report-values.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { AssetRef, FindingRecord, Severity, StateRef, VulnerabilityRef } from '../types.js';
import type { ProductTree } from './product-tree.js';

/**
 * The product_status lists (CSAF 2.0 §3.2.3.9) by what they say, in the order a product listed
 * twice is read: exposure first, because under-reporting it is the worse error.
 */
const OPEN_STATUSES = ['known_affected', 'first_affected', 'last_affected', 'under_investigation'];
const FIXED_STATUSES = ['fixed', 'first_fixed', 'recommended'];
const NOT_AFFECTED = 'known_not_affected';
const STATUS_ORDER = [...OPEN_STATUSES, ...FIXED_STATUSES, NOT_AFFECTED];

/**
 * CVSS qualitative ratings (cvss_v3 / cvss_v4 baseSeverity) as Rampart's. A product without a
 * score is Medium, as DefectDojo has it: a vendor's published advisory is not informational, and
 * Info would hide it behind a minimum-severity filter.
 */
export const CSAF_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  none: 'Info',
};

export const CSAF_UNSCORED_SEVERITY: Severity = 'Medium';

/** The advisory's header, for evidence and as the asset of products the tree does not define. */
export interface CsafDocument {
  trackingId?: string;
  title?: string;
  publisher?: string;
  asset(): AssetRef;
}

interface Score {
  cvss2Vector?: string;
  cvss2Score?: number;
  cvss3Vector?: string;
  cvss3Score?: number;
  cvss4Vector?: string;
  cvss4Score?: number;
  severity?: Severity;
}

function rated(word: unknown): Severity | undefined {
  const key = asText(word)?.toLowerCase() ?? '';
  return Object.hasOwn(CSAF_SEVERITY, key) ? CSAF_SEVERITY[key] : undefined;
}

/** One `scores[]` entry: cvss_v2, cvss_v3 (3.0 or 3.1) and, from CSAF 2.1, cvss_v4. */
function scoreOf(entry: JsonObject): Score | undefined {
  const v2 = asObject(entry.cvss_v2);
  const v3 = asObject(entry.cvss_v3);
  const v4 = asObject(entry.cvss_v4);
  if (!v2 && !v3 && !v4) return undefined;
  const cvss3Vector = cvss3VectorOf(asText(v3?.vectorString), asText(v3?.version) === '3.0' ? '3.0' : '3.1');
  const cvss3Score = cvssScoreOf(v3?.baseScore) ?? cvss3BaseScore(cvss3Vector);
  const cvss4Score = cvssScoreOf(v4?.baseScore);
  const band = cvss3Score ?? cvss4Score;
  return {
    // v2 is kept, not used for the severity: CSAF's v2 has no baseSeverity and no official bands.
    ...(v2 ? cvss2Of(cvssScoreOf(v2.baseScore), asText(v2.vectorString)) : {}),
    cvss3Vector,
    cvss3Score,
    cvss4Vector: cvss4VectorOf(asText(v4?.vectorString)),
    cvss4Score,
    severity:
      rated(v3?.baseSeverity) ??
      rated(v4?.baseSeverity) ??
      (band === undefined ? undefined : severityOfCvssScore(band)),
  };
}

/** Scores by product id: a score applies to the products it lists; a later entry wins. */
function scoresByProduct(v: JsonObject): Map<string, Score> {
  const out = new Map<string, Score>();
  for (const entry of asArray(v.scores).map(asObject)) {
    const score = entry && scoreOf(entry);
    if (score) for (const id of texts(entry.products)) out.set(id, score);
  }
  return out;
}

/** The product ids a remediation, flag or threat applies to, groups expanded. */
function appliesTo(item: JsonObject, tree: ProductTree): string[] {
  return [...texts(item.product_ids), ...tree.members(texts(item.group_ids))];
}

/** Per product, the entries of a list (remediations, flags, threats) that apply to it. */
function byProduct(list: unknown, tree: ProductTree): Map<string, JsonObject[]> {
  const out = new Map<string, JsonObject[]>();
  for (const item of asArray(list).map(asObject)) {
    if (!item) continue;
    for (const id of appliesTo(item, tree)) {
      const list = out.get(id);
      if (list) list.push(item);
      else out.set(id, [item]);
    }
  }
  return out;
}

function remediationText(r: JsonObject): string {
  const details = asText(r.details);
  const url = asText(r.url);
  return `${asText(r.category) ?? 'remediation'}${details ? `: ${details}` : ''}${url ? ` (${url})` : ''}`;
}

/** The id: the CVE, else the advisory's own id of an embargoed issue, else the title. */
function identifier(v: JsonObject): string | undefined {
  const ids = asArray(v.ids).map((i) => asText(asObject(i)?.text));
  return asText(v.cve) ?? ids.find(Boolean) ?? asText(v.title);
}

/** Notes that describe the vulnerability as text; others (legal, other) labelled by their title. */
function descriptionOf(v: JsonObject): string | undefined {
  const parts = asArray(v.notes)
    .map(asObject)
    .map((n) => {
      const text = asText(n?.text);
      const category = asText(n?.category) ?? '';
      if (!text) return undefined;
      if (['description', 'summary', 'details', 'general'].includes(category)) return text;
      return `${asText(n?.title) ?? category ?? 'Note'}: ${text}`;
    });
  return parts.filter(Boolean).join('\n\n') || undefined;
}

function vulnerabilityRef(v: JsonObject, id: string, first: Score | undefined): VulnerabilityRef {
  const cwes = [asObject(v.cwe), ...asArray(v.cwes).map(asObject)].map((c) => asText(c?.id));
  const remediations = asArray(v.remediations).map(asObject);
  return {
    ruleId: id,
    title: asText(v.title) ?? id,
    ...vulnerabilityIds(
      id,
      asArray(v.ids).map((i) => asText(asObject(i)?.text)),
    ),
    description: descriptionOf(v),
    solution: unique(remediations.map((r) => r && remediationText(r))).join('\n') || undefined,
    cweIds: cwes.flatMap((c) => cweIdsIn(c)),
    cvss2Vector: first?.cvss2Vector,
    cvss2Score: first?.cvss2Score,
    cvss3Vector: first?.cvss3Vector,
    cvss3Score: first?.cvss3Score,
    cvss4Vector: first?.cvss4Vector,
    cvss4Score: first?.cvss4Score,
    references: unique([
      ...asArray(v.references).map((r) => asText(asObject(r)?.url)),
      ...remediations.map((r) => asText(r?.url)),
    ]),
    publishedAt: asText(v.release_date) ?? asText(v.discovery_date),
  };
}

/**
 * The decision a product status carries. known_not_affected is a false positive, its reason the
 * justification flag and impact statement the CSAF VEX profile asks for; fixed, first_fixed and
 * recommended (a version to use: not affected or fixed) are Fixed; the affected statuses and
 * under_investigation stay open.
 */
function statusState(
  status: string,
  flags: JsonObject[],
  threats: JsonObject[],
  fix?: string,
): StateRef | undefined {
  if (FIXED_STATUSES.includes(status)) return { state: 'Fixed', reason: `${status}${fix ? `: ${fix}` : ''}` };
  if (status !== NOT_AFFECTED) return undefined;
  const flag = flags.map((f) => asText(f.label)).find(Boolean);
  const impact = threats
    .filter((t) => asText(t.category) === 'impact')
    .map((t) => asText(t.details))
    .find(Boolean);
  return {
    state: 'FalsePositive',
    reason: `${status}${flag ? ` (${flag})` : ''}${impact ? `: ${impact}` : ''}`,
  };
}

/** Each product id once, with the status it is read under (see STATUS_ORDER). */
function productStatuses(v: JsonObject): [id: string, status: string][] {
  const lists = asObject(v.product_status) ?? {};
  const statuses = [...STATUS_ORDER, ...Object.keys(lists).filter((s) => !STATUS_ORDER.includes(s))];
  const seen = new Map<string, string>();
  for (const status of statuses)
    for (const id of texts(lists[status])) if (!seen.has(id)) seen.set(id, status);
  return [...seen];
}

/**
 * One vulnerability of an advisory as findings: one per product it gives a status for, each in
 * the asset the product belongs to (see ProductTree.target). Severity: the product's CVSS rating
 * (its baseSeverity, else the band of its score), else CSAF_UNSCORED_SEVERITY. Undefined when the
 * vulnerability has no id at all.
 */
export function vulnerabilityFindings(
  v: JsonObject,
  tree: ProductTree,
  doc: CsafDocument,
): FindingRecord[] | undefined {
  const id = identifier(v);
  if (!id) return undefined;
  const scores = scoresByProduct(v);
  const remediations = byProduct(v.remediations, tree);
  const flags = byProduct(v.flags, tree);
  const threats = byProduct(v.threats, tree);
  const vulnerability = vulnerabilityRef(v, id, scores.values().next().value);
  return productStatuses(v).map(([productId, status]) => {
    const target = tree.target(productId, () => doc.asset());
    const own = remediations.get(productId) ?? [];
    const fix = own
      .filter((r) => asText(r.category) === 'vendor_fix')
      .map((r) => asText(r.details))
      .find(Boolean);
    return {
      type: 'finding',
      asset: target.asset,
      vulnerability,
      location: target.location,
      severity: scores.get(productId)?.severity ?? CSAF_UNSCORED_SEVERITY,
      evidence: [
        `Product: ${target.label} (${productId})`,
        `Product status: ${status}`,
        ...own.map((r) => `Remediation: ${remediationText(r)}`),
        doc.trackingId && `Advisory: ${[doc.trackingId, doc.title].filter(Boolean).join(' — ')}`,
        doc.publisher && `Publisher: ${doc.publisher}`,
      ]
        .filter(Boolean)
        .join('\n'),
      toolFindingId: `${productId}|${id}`,
      state: statusState(status, flags.get(productId) ?? [], threats.get(productId) ?? [], fix),
      fixedIn: fix,
    };
  });
}
