import { cweIdsIn } from '../../../parsing/ids.js';
import { asObject, type JsonObject } from '../../../parsing/json-fields.js';
import type { CveRecord, CvssMetric, SsvcDecision } from '../../types.js';
import { cvssMetricOf } from '../cvss-metric.js';
import { items, noteCuts, type RecordRead } from '../json-records.js';
import { englishText, ssvcDecision } from '../nvd/convert.js';
import {
  cveIdOf,
  cweIdOf,
  distinct,
  MAX_REFERENCES,
  referenceUrls,
  shortText,
  timestamp,
  type WarningLog,
} from '../text.js';
import { configurationsFromAffected } from './affected.js';

/** The CVSS keys of a CVE 5 metrics entry, newest first, with the version each holds. */
const CVSS_KEYS = { cvssV4_0: '4.0', cvssV3_1: '3.1', cvssV3_0: '3.0', cvssV2_0: undefined } as const;

interface Container {
  value: JsonObject;
  /** "CNA" or "ADP:<shortName>", as CvssMetric.source. */
  source: string;
}

/** One CVE 5 record (as rebuilt by the reader) as a CveRecord; undefined without a CVE id. */
export function cveFromCve5(read: RecordRead, log: WarningLog): CveRecord | undefined {
  const raw = read.value;
  const meta = asObject(raw.cveMetadata);
  const id = cveIdOf(meta?.cveId);
  if (!id) {
    log.note(
      'CVE 5 records without a cveMetadata.cveId were skipped',
      `CVE 5 record #${read.index + 1} has no cveMetadata.cveId; skipped.`,
    );
    return undefined;
  }
  noteCuts(read, id, log);
  const containers = containersOf(asObject(raw.containers));
  const cna = containers[0]?.value;
  const state = shortText(meta?.state);
  const record: CveRecord = {
    id,
    feed: 'cve5',
    rejected: state?.toUpperCase() === 'REJECTED',
    cvss: containers.flatMap((c) => metricsOf(c, id, log)),
    cweIds: distinct(containers.flatMap((c) => cweIdsOf(c.value.problemTypes))),
    references: referencesOf(containers, id, log),
    configurations: [],
  };
  if (state) record.status = state;
  const publishedAt = timestamp(meta?.datePublished);
  if (publishedAt) record.publishedAt = publishedAt;
  const modifiedAt = timestamp(meta?.dateUpdated);
  if (modifiedAt) record.modifiedAt = modifiedAt;
  const description = englishText(cna?.descriptions) ?? englishText(cna?.rejectedReasons);
  if (description) record.description = description;
  record.configurations = configurationsOf(containers, id, log);
  const ssvc = containers.map((c) => ssvcOf(c.value)).find((s) => s !== undefined);
  if (ssvc) record.ssvc = ssvc;
  const tags = distinct(containers.flatMap((c) => items(c.value.tags).map(shortText)));
  if (tags.length > 0) record.tags = tags;
  return record;
}

/** The CNA container first, then the ADP ones. */
function containersOf(containers: JsonObject | undefined): Container[] {
  const out: Container[] = [];
  const cna = asObject(containers?.cna);
  if (cna) out.push({ value: cna, source: 'CNA' });
  for (const item of items(containers?.adp)) {
    const adp = asObject(item);
    if (!adp) continue;
    const name = shortText(asObject(adp.providerMetadata)?.shortName) ?? 'unknown';
    out.push({ value: adp, source: `ADP:${name}` });
  }
  return out;
}

function metricsOf(container: Container, id: string, log: WarningLog): CvssMetric[] {
  const out: CvssMetric[] = [];
  for (const item of items(container.value.metrics)) {
    const entry = asObject(item);
    for (const [key, assumeVersion] of Object.entries(CVSS_KEYS)) {
      const data = asObject(entry?.[key]);
      if (!data) continue;
      const metric = cvssMetricOf(
        { vector: data.vectorString, baseScore: data.baseScore, source: container.source, assumeVersion },
        (reason) =>
          log.note(
            'CVSS metrics that are not valid were skipped',
            `${id}: ${container.source} ${key} skipped: ${reason}.`,
          ),
      );
      if (metric) out.push(metric);
    }
  }
  return out;
}

/** CWE ids from `problemTypes[].descriptions[]`: the cweId field, else a "CWE-n" a CWE-typed text starts with. */
function cweIdsOf(problemTypes: unknown): (string | undefined)[] {
  return items(problemTypes).flatMap((p) =>
    items(asObject(p)?.descriptions).map((d) => {
      const description = asObject(d);
      const own = cweIdOf(description?.cweId);
      if (own || description?.type !== 'CWE') return own;
      return cweIdsIn(shortText(description.description))[0];
    }),
  );
}

function referencesOf(containers: Container[], id: string, log: WarningLog): string[] {
  const urls = containers.flatMap((c) => items(c.value.references).map((r) => asObject(r)?.url));
  const { urls: kept, dropped } = referenceUrls(urls);
  if (dropped > 0)
    log.note(
      `records had more than ${MAX_REFERENCES} references`,
      `${id}: ${dropped} references beyond the first ${MAX_REFERENCES} were left out.`,
    );
  return kept;
}

function configurationsOf(containers: Container[], id: string, log: WarningLog): CveRecord['configurations'] {
  const configurations: CveRecord['configurations'] = [];
  const skipped = new Map<string, string[]>();
  for (const container of containers) {
    const result = configurationsFromAffected(items(container.value.affected));
    configurations.push(...result.configurations);
    for (const { entry, reason } of result.skipped)
      skipped.set(reason, [...(skipped.get(reason) ?? []), `${container.source} affected ${entry}`]);
  }
  if (skipped.size > 0)
    log.note('records had affected entries that could not be converted', skipMessage(id, skipped));
  return configurations;
}

/** Entries named per reason in a record's warning; the rest are counted. */
const SHOWN_ENTRIES = 5;

function skipMessage(id: string, skipped: Map<string, string[]>): string {
  const total = [...skipped.values()].reduce((n, entries) => n + entries.length, 0);
  const reasons = [...skipped].map(([reason, entries]) => {
    const more = entries.length > SHOWN_ENTRIES ? ` and ${entries.length - SHOWN_ENTRIES} more` : '';
    return `${entries.slice(0, SHOWN_ENTRIES).join(', ')}${more}: ${reason}`;
  });
  return `${id}: ${total} affected ${total === 1 ? 'entry was' : 'entries were'} not converted. ${reasons.join('. ')}.`;
}

/** Vulnrichment's `{ other: { type: "ssvc", content: { options, timestamp } } }` metric. */
function ssvcOf(container: JsonObject): SsvcDecision | undefined {
  for (const item of items(container.metrics)) {
    const other = asObject(asObject(item)?.other);
    if (typeof other?.type !== 'string' || other.type.toLowerCase() !== 'ssvc') continue;
    const content = asObject(other.content);
    const decision = content && ssvcDecision(content.options, content.timestamp);
    if (decision) return decision;
  }
  return undefined;
}
