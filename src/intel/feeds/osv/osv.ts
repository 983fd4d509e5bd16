/**
 * OSV advisories (GitHub Advisory Database, PyPA, Go, RustSec… in the OSV schema): one advisory
 * per file, or a JSON array of them. (The YAML form PyPA publishes is not read: convert it.)
 *
 * Read: id, aliases, upstream and related (how osv.dev's distribution records name their CVEs:
 * Debian's DSA-/DLA-/DEBIAN-CVE- and Ubuntu's UBUNTU-CVE- in upstream, a USN in related), summary, details (cut at 32 KiB), published, modified (required), withdrawn;
 * severity[] of type CVSS_V2 / CVSS_V3 / CVSS_V4 → cvss, each vector checked and its base score
 * computed by the CVSS module (OSV states no score; an invalid vector is a warning); other
 * severity types (Ubuntu's words) are not read. database_specific.severity (GHSA's "HIGH",
 * "MODERATE"…) → severity; database_specific.cwe_ids → cweIds; reference URLs without repeats;
 * affected[] → package ecosystem, name and purl, ranges (SEMVER / ECOSYSTEM / GIT with their
 * events and a GIT range's repo) and the explicit versions list.
 * Not read: credits, affected[].severity, ecosystem_specific and the other
 * database_specific fields. An advisory without an id or a valid modified time is skipped with a
 * warning, as is an affected entry without a package ecosystem and name.
 */
import type { Readable } from 'node:stream';
import { asObject } from '../../../parsing/json-fields.js';
import type { CvssMetric, OsvAdvisory, OsvAffected, OsvEvent, OsvRange } from '../../types.js';
import { cvssMetricOf } from '../cvss-metric.js';
import { FeedError } from '../errors.js';
import {
  isSmallScalar,
  items,
  type JsonPath,
  jsonRecords,
  noteCuts,
  type RecordLayout,
  type RecordRead,
} from '../json-records.js';
import {
  cleanText,
  cweIdOf,
  distinct,
  MAX_REFERENCES,
  MAX_SHORT_CHARS,
  MAX_STREAMED_CHARS,
  MAX_URL_CHARS,
  referenceUrls,
  shortText,
  timestamp,
  WarningLog,
} from '../text.js';
import type { FeedReader, FeedReadOptions } from '../types.js';

const SCALARS = new Set(['id', 'modified', 'published', 'withdrawn', 'summary', 'details', 'schema_version']);
const CVSS_TYPES: Record<string, '3.1' | '4.0' | undefined> = {
  CVSS_V2: undefined,
  CVSS_V3: '3.1',
  CVSS_V4: '4.0',
};
const RANGE_TYPES = new Set(['SEMVER', 'ECOSYSTEM', 'GIT']);
const EVENT_KEYS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

const MAX_ITEMS: Readonly<Record<string, number>> = {
  aliases: 100,
  upstream: 100,
  related: 1000,
  severity: 20,
  references: 1000,
  affected: 1000,
  ranges: 2000,
  versions: 20000,
  cwe_ids: 50,
};

/** A root object is one advisory; a root array holds one per element. */
function locate(path: JsonPath): { record: number; inner: JsonPath } | undefined {
  if (typeof path[0] === 'number') return { record: path[0], inner: path.slice(1) };
  return path.length > 0 ? { record: 0, inner: path } : undefined;
}

function pick(inner: JsonPath): boolean {
  const [key, a, b, c] = inner;
  const index = typeof a === 'number';
  switch (inner.length) {
    case 1:
      return SCALARS.has(key as string);
    case 2:
      if (key === 'database_specific') return a === 'severity';
      return index && (key === 'aliases' || key === 'upstream' || key === 'related' || key === 'severity');
    case 3:
      if (key === 'references') return index && b === 'url';
      if (key === 'database_specific') return a === 'cwe_ids' && typeof b === 'number';
      return key === 'affected' && index && b === 'package';
    case 4:
      return key === 'affected' && index && (b === 'ranges' || b === 'versions') && typeof c === 'number';
    default:
      return false;
  }
}

/** Whole small objects (severity, package, range) as they are; single fields only as small scalars. */
function keep(inner: JsonPath, value: unknown): boolean {
  const last = inner[inner.length - 1];
  const key = inner[inner.length - 2];
  if (last === 'package' || (typeof last === 'number' && (key === 'severity' || key === 'ranges')))
    return asObject(value) !== undefined;
  if (inner.length === 1) return isSmallScalar(value, MAX_STREAMED_CHARS);
  return isSmallScalar(value, last === 'url' ? MAX_URL_CHARS : MAX_SHORT_CHARS);
}

const layout: RecordLayout = { locate, pick, keep, maxItems: MAX_ITEMS };

/** The advisories of an OSV JSON file (one advisory, or an array of them). */
export async function* readOsv(input: Readable, options: FeedReadOptions): AsyncGenerator<OsvAdvisory> {
  const log = new WarningLog(options.warn);
  let yielded = 0;
  for await (const read of jsonRecords(input, layout, options.reopen)) {
    if (read.kind !== 'record') continue;
    const advisory = advisoryOf(read, log);
    if (!advisory) continue;
    yielded += 1;
    yield advisory;
  }
  log.flush();
  if (yielded === 0)
    throw new FeedError(
      'Not an OSV advisory: no object with an "id" and a "modified" time (nor an array of them) was found.',
    );
}

/** One advisory (as rebuilt by the reader) as an OsvAdvisory; undefined without an id or modified time. */
function advisoryOf(read: RecordRead, log: WarningLog): OsvAdvisory | undefined {
  const raw = read.value;
  const id = shortText(raw.id);
  const modifiedAt = timestamp(raw.modified);
  if (!id || !modifiedAt) {
    log.note(
      'OSV advisories without an id or modified time were skipped',
      `OSV advisory #${read.index + 1}${id ? ` (${id})` : ''} has no ${id ? 'valid modified time' : 'id'}; skipped.`,
    );
    return undefined;
  }
  noteCuts(read, id, log);
  const specific = asObject(raw.database_specific);
  const advisory: OsvAdvisory = {
    id,
    aliases: idsOf(raw.aliases, id),
    upstream: idsOf(raw.upstream, id),
    related: idsOf(raw.related, id),
    modifiedAt,
    cvss: cvssOf(raw.severity, id, log),
    cweIds: distinct(items(specific?.cwe_ids).map(cweIdOf)),
    references: referencesOf(raw.references, id, log),
    affected: affectedOf(raw.affected, id, log),
  };
  const summary = cleanText(raw.summary);
  if (summary) advisory.summary = summary;
  const details = cleanText(raw.details);
  if (details) advisory.details = details;
  const publishedAt = timestamp(raw.published);
  if (publishedAt) advisory.publishedAt = publishedAt;
  const withdrawnAt = timestamp(raw.withdrawn);
  if (withdrawnAt) advisory.withdrawnAt = withdrawnAt;
  const severity = shortText(specific?.severity);
  if (severity) advisory.severity = severity;
  return advisory;
}

/** A list of record ids (aliases, upstream, related): strings only, without repeats or the record's own id. */
function idsOf(list: unknown, id: string): string[] {
  return distinct(
    items(list)
      .filter((item) => typeof item === 'string')
      .map(shortText),
  ).filter((other) => other !== id);
}

function cvssOf(severity: unknown, id: string, log: WarningLog): CvssMetric[] {
  const out: CvssMetric[] = [];
  for (const item of items(severity)) {
    const entry = asObject(item);
    const type = shortText(entry?.type)?.toUpperCase();
    if (!type || !Object.hasOwn(CVSS_TYPES, type)) continue;
    const metric = cvssMetricOf({ vector: entry?.score, assumeVersion: CVSS_TYPES[type] }, (reason) =>
      log.note('CVSS vectors that are not valid were skipped', `${id}: ${type} skipped: ${reason}.`),
    );
    if (metric) out.push(metric);
  }
  return out;
}

function referencesOf(references: unknown, id: string, log: WarningLog): string[] {
  const { urls, dropped } = referenceUrls(items(references).map((r) => asObject(r)?.url));
  if (dropped > 0)
    log.note(
      `advisories had more than ${MAX_REFERENCES} references`,
      `${id}: ${dropped} references beyond the first ${MAX_REFERENCES} were left out.`,
    );
  return urls;
}

function affectedOf(affected: unknown, id: string, log: WarningLog): OsvAffected[] {
  const out: OsvAffected[] = [];
  let unnamed = 0;
  for (const item of items(affected)) {
    const entry = asObject(item);
    const pkg = asObject(entry?.package);
    const ecosystem = shortText(pkg?.ecosystem);
    const name = shortText(pkg?.name);
    if (!entry || !ecosystem || !name) {
      unnamed += 1;
      continue;
    }
    const result: OsvAffected = {
      ecosystem,
      name,
      ranges: items(entry.ranges)
        .map(rangeOf)
        .filter((r): r is OsvRange => r !== undefined),
      versions: distinct(items(entry.versions).map(shortText)),
    };
    const purl = shortText(pkg?.purl);
    if (purl) result.purl = purl;
    out.push(result);
  }
  if (unnamed > 0)
    log.note(
      'OSV affected entries without a package were skipped',
      `${id}: ${unnamed} affected ${unnamed === 1 ? 'entry names' : 'entries name'} no package ecosystem and name; skipped.`,
    );
  return out;
}

function rangeOf(raw: unknown): OsvRange | undefined {
  const range = asObject(raw);
  const type = shortText(range?.type)?.toUpperCase();
  if (!range || !type || !RANGE_TYPES.has(type)) return undefined;
  const events = items(range.events)
    .map(eventOf)
    .filter((e): e is OsvEvent => e !== undefined);
  if (events.length === 0) return undefined;
  const result: OsvRange = { type: type as OsvRange['type'], events };
  const repo = shortText(range.repo);
  if (type === 'GIT' && repo) result.repo = repo;
  return result;
}

function eventOf(raw: unknown): OsvEvent | undefined {
  const event = asObject(raw);
  const out: OsvEvent = {};
  for (const key of EVENT_KEYS) {
    const value = shortText(event?.[key]);
    if (value) out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** How sure it is that a file is an OSV advisory (not an OSV-Scanner report, which embeds them). */
export function detectOsv(head: string): number {
  if (/"results"\s*:\s*\[/.test(head) && /"packages"\s*:/.test(head)) return 0;
  const id = /"id"\s*:\s*"[A-Za-z][A-Za-z0-9]*-[^"\s]+"/.test(head);
  const modified = /"modified"\s*:\s*"\d{4}-\d{2}-\d{2}/.test(head);
  if (!id || !modified) return 0;
  if (/"schema_version"\s*:\s*"/.test(head)) return 0.95;
  return /"affected"\s*:\s*\[|"aliases"\s*:\s*\[/.test(head) ? 0.85 : 0.5;
}

export const osvFeed: FeedReader<'osv'> = { feed: 'osv', detect: detectOsv, read: readOsv };
