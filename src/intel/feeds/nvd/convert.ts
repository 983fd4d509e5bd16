import { asObject, type JsonObject } from '../../../parsing/json-fields.js';
import type {
  ConfigNode,
  Configuration,
  CpeMatch,
  CveRecord,
  CvssMetric,
  SsvcDecision,
} from '../../types.js';
import { cvssMetricOf } from '../cvss-metric.js';
import { items, noteCuts, type RecordRead } from '../json-records.js';
import {
  cleanText,
  cveIdOf,
  cweIdOf,
  distinct,
  isoDate,
  MAX_REFERENCES,
  referenceUrls,
  shortText,
  timestamp,
  type WarningLog,
} from '../text.js';

/** NVD's metric lists, newest version first, with the version each one holds. */
const METRIC_VERSIONS = {
  cvssMetricV40: '4.0',
  cvssMetricV31: '3.1',
  cvssMetricV30: '3.0',
  cvssMetricV2: undefined,
} as const;

export const METRIC_KINDS: readonly string[] = [...Object.keys(METRIC_VERSIONS), 'ssvcV203'];

/** One NVD `cve` object (as rebuilt by the reader) as a CveRecord; undefined without a CVE id. */
export function cveFromNvd(read: RecordRead, log: WarningLog): CveRecord | undefined {
  const raw = read.value;
  const id = cveIdOf(raw.id);
  if (!id) {
    log.note(
      'NVD records without a CVE id were skipped',
      `NVD record #${read.index + 1} has no CVE id; skipped.`,
    );
    return undefined;
  }
  noteCuts(read, id, log);
  const status = shortText(raw.vulnStatus);
  const record: CveRecord = {
    id,
    feed: 'nvd',
    rejected: status?.toLowerCase() === 'rejected',
    cvss: metricsOf(asObject(raw.metrics), id, log),
    cweIds: cweIdsOf(raw.weaknesses),
    references: referencesOf(raw.references, id, log),
    configurations: items(raw.configurations)
      .map(configurationOf)
      .filter((c) => c.nodes.length > 0),
  };
  if (status) record.status = status;
  const publishedAt = timestamp(raw.published);
  if (publishedAt) record.publishedAt = publishedAt;
  const modifiedAt = timestamp(raw.lastModified);
  if (modifiedAt) record.modifiedAt = modifiedAt;
  const description = englishText(raw.descriptions);
  if (description) record.description = description;
  const kev = kevOf(raw, id, log);
  if (kev) record.kev = kev;
  const ssvc = ssvcOf(asObject(raw.metrics));
  if (ssvc) record.ssvc = ssvc;
  const tags = distinct(items(raw.cveTags).flatMap((t) => items(asObject(t)?.tags).map(shortText)));
  if (tags.length > 0) record.tags = tags;
  return record;
}

/** The first English text of a `[{ lang, value }]` list ("en", "en-US"…). */
export function englishText(list: unknown): string | undefined {
  const english = items(list)
    .map(asObject)
    .find((d) => typeof d?.lang === 'string' && /^en(\b|[-_])/i.test(d.lang));
  return cleanText(english?.value);
}

function metricsOf(metrics: JsonObject | undefined, id: string, log: WarningLog): CvssMetric[] {
  const out: CvssMetric[] = [];
  for (const [kind, assumeVersion] of Object.entries(METRIC_VERSIONS)) {
    for (const item of items(metrics?.[kind])) {
      const metric = asObject(item);
      const data = asObject(metric?.cvssData);
      const cvss = cvssMetricOf(
        {
          vector: data?.vectorString,
          baseScore: data?.baseScore,
          source: shortText(metric?.source),
          type: metric?.type,
          assumeVersion,
        },
        (reason) =>
          log.note('CVSS metrics that are not valid were skipped', `${id}: ${kind} skipped: ${reason}.`),
      );
      if (cvss) out.push(cvss);
    }
  }
  return out;
}

function cweIdsOf(weaknesses: unknown): string[] {
  return distinct(
    items(weaknesses).flatMap((w) => items(asObject(w)?.description).map((d) => cweIdOf(asObject(d)?.value))),
  );
}

function referencesOf(references: unknown, id: string, log: WarningLog): string[] {
  const { urls, dropped } = referenceUrls(items(references).map((r) => asObject(r)?.url));
  if (dropped > 0)
    log.note(
      `records had more than ${MAX_REFERENCES} references`,
      `${id}: ${dropped} references beyond the first ${MAX_REFERENCES} were left out.`,
    );
  return urls;
}

function configurationOf(raw: unknown): Configuration {
  const config = asObject(raw);
  return {
    operator: config?.operator === 'AND' ? 'AND' : 'OR',
    negate: config?.negate === true,
    nodes: items(config?.nodes)
      .map(nodeOf)
      .filter((n) => n.cpeMatch.length > 0),
  };
}

function nodeOf(raw: unknown): ConfigNode {
  const node = asObject(raw);
  return {
    operator: node?.operator === 'AND' ? 'AND' : 'OR',
    negate: node?.negate === true,
    cpeMatch: items(node?.cpeMatch)
      .map(cpeMatchOf)
      .filter((m): m is CpeMatch => m !== undefined),
  };
}

const RANGE_FIELDS = [
  'versionStartIncluding',
  'versionStartExcluding',
  'versionEndIncluding',
  'versionEndExcluding',
] as const;

function cpeMatchOf(raw: unknown): CpeMatch | undefined {
  const entry = asObject(raw);
  const criteria = shortText(entry?.criteria);
  if (!criteria?.startsWith('cpe:2.3:')) return undefined;
  // NVD always states `vulnerable`; an entry without it is read as vulnerable, as NVD's default.
  const match: CpeMatch = { criteria, vulnerable: entry?.vulnerable !== false };
  for (const field of RANGE_FIELDS) {
    const value = shortText(entry?.[field]);
    if (value) match[field] = value;
  }
  const matchCriteriaId = shortText(entry?.matchCriteriaId);
  if (matchCriteriaId) match.matchCriteriaId = matchCriteriaId;
  return match;
}

function kevOf(raw: JsonObject, id: string, log: WarningLog): CveRecord['kev'] {
  if (raw.cisaExploitAdd === undefined) return undefined;
  const dateAdded = isoDate(raw.cisaExploitAdd);
  const dueDate = isoDate(raw.cisaActionDue);
  const name = cleanText(raw.cisaVulnerabilityName);
  if (!dateAdded || !dueDate || !name) {
    log.note(
      'incomplete CISA KEV fields were left out',
      `${id}: the CISA KEV fields lack a valid cisaExploitAdd, cisaActionDue or cisaVulnerabilityName; left out.`,
    );
    return undefined;
  }
  const kev: NonNullable<CveRecord['kev']> = { dateAdded, dueDate, name };
  const requiredAction = cleanText(raw.cisaRequiredAction);
  if (requiredAction) kev.requiredAction = requiredAction;
  return kev;
}

/** NVD's `ssvcV203` entry: options as a list of one-key objects. */
function ssvcOf(metrics: JsonObject | undefined): SsvcDecision | undefined {
  const data = asObject(asObject(items(metrics?.ssvcV203)[0])?.ssvcData);
  return data ? ssvcDecision(data.options, data.timestamp) : undefined;
}

const SSVC_KEYS = new Map<string, 'exploitation' | 'automatable' | 'technicalImpact'>([
  ['exploitation', 'exploitation'],
  ['automatable', 'automatable'],
  ['technicalimpact', 'technicalImpact'],
]);

/**
 * SSVC options as both NVD (`{ "technicalImpact": "total" }`) and CVE 5 (`{ "Technical Impact":
 * "total" }`) write them; values in lower case (CISA writes "Yes" and "yes").
 */
export function ssvcDecision(options: unknown, when: unknown): SsvcDecision | undefined {
  const decision: SsvcDecision = {};
  for (const option of items(options)) {
    for (const [key, value] of Object.entries(asObject(option) ?? {})) {
      const field = SSVC_KEYS.get(key.replace(/\s+/g, '').toLowerCase());
      const text = shortText(value);
      if (field && text) decision[field] = text.toLowerCase();
    }
  }
  if (Object.keys(decision).length === 0) return undefined;
  const at = timestamp(when);
  if (at) decision.timestamp = at;
  return decision;
}
