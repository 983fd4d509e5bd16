/**
 * CVE JSON 5.x records (CVE Record Format 5.0/5.1, as in CVEProject/cvelistV5 and CISA's
 * Vulnrichment): one record per file, or a JSON array of records. (The cvelistV5 delta and
 * bulk zip files are not read here: unpack them and read each record.)
 *
 * Read: cveMetadata.cveId, state (status; "REJECTED" → rejected), datePublished / dateUpdated;
 * the CNA's English description (its rejectedReasons for a rejected record); CVSS
 * cvssV4_0 / V3_1 / V3_0 / V2_0 from the CNA (source "CNA") and each ADP (source
 * "ADP:<shortName>", e.g. "ADP:CISA-ADP"), stated base score kept; problemTypes → CWE ids (the
 * cweId field, else a CWE-typed description's "CWE-n"); references of all containers without
 * repeats; CISA's SSVC ("other" metric of type ssvc) → ssvc; container tags; `affected` entries
 * of all containers → configurations as affected.ts describes (skipped entries are one warning
 * per record, with the reason for each).
 * Not read: credits, timelines, solutions, workarounds, exploits, impacts, other "other" metrics
 * (CNA severity words, Vulnrichment's KEV date: the KEV catalogue is the source for that, and
 * CveRecord.kev needs the due date CISA's ADP container does not give), x_ extensions.
 */
import type { Readable } from 'node:stream';
import type { CveRecord } from '../../types.js';
import { FeedError } from '../errors.js';
import { isSmallScalar, type JsonPath, jsonRecords, type RecordLayout } from '../json-records.js';
import { MAX_SHORT_CHARS, MAX_URL_CHARS, WarningLog } from '../text.js';
import type { FeedReader, FeedReadOptions } from '../types.js';
import { cveFromCve5 } from './convert.js';

const META_FIELDS = new Set(['cveId', 'state', 'datePublished', 'dateUpdated']);
/** Short lists of small objects, picked an element at a time. */
const ELEMENT_LISTS = new Set(['descriptions', 'rejectedReasons', 'metrics', 'problemTypes']);
const AFFECTED_FIELDS = new Set(['vendor', 'product', 'packageName', 'defaultStatus']);

const MAX_ITEMS: Readonly<Record<string, number>> = {
  adp: 20,
  descriptions: 20,
  rejectedReasons: 20,
  metrics: 50,
  problemTypes: 50,
  tags: 20,
  references: 1000,
  affected: 1000,
  cpes: 2000,
  versions: 10000,
};

/** A root object is one record; a root array holds one per element. */
function locate(path: JsonPath): { record: number; inner: JsonPath } | undefined {
  if (typeof path[0] === 'number') return { record: path[0], inner: path.slice(1) };
  return path.length > 0 ? { record: 0, inner: path } : undefined;
}

function pick(inner: JsonPath): boolean {
  const [key, field] = inner;
  if (key === 'cveMetadata') return inner.length === 2 && META_FIELDS.has(field as string);
  if (key !== 'containers') return false;
  if (field === 'cna') return pickInContainer(inner.slice(2));
  return field === 'adp' && typeof inner[2] === 'number' && pickInContainer(inner.slice(3));
}

function pickInContainer(path: JsonPath): boolean {
  const [key, a, b, c] = path;
  const index = typeof a === 'number';
  switch (path.length) {
    case 2:
      if (key === 'providerMetadata') return a === 'shortName';
      return index && (ELEMENT_LISTS.has(key as string) || key === 'tags');
    case 3:
      if (key === 'references') return index && b === 'url';
      return key === 'affected' && index && AFFECTED_FIELDS.has(b as string);
    case 4:
      return key === 'affected' && index && (b === 'cpes' || b === 'versions') && typeof c === 'number';
    default:
      return false;
  }
}

/** Whole small objects (metrics, descriptions, versions) as they are; single fields only as small scalars. */
function keep(inner: JsonPath, value: unknown): boolean {
  const last = inner[inner.length - 1];
  const key = inner[inner.length - 2];
  if (typeof last === 'number' && (ELEMENT_LISTS.has(key as string) || key === 'versions'))
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  return isSmallScalar(value, last === 'url' ? MAX_URL_CHARS : MAX_SHORT_CHARS);
}

const layout: RecordLayout = { locate, pick, keep, maxItems: MAX_ITEMS };

/** The CVE records of a CVE JSON 5 file (one record, or an array of them). */
export async function* readCve5(input: Readable, options: FeedReadOptions): AsyncGenerator<CveRecord> {
  const log = new WarningLog(options.warn);
  let yielded = 0;
  for await (const read of jsonRecords(input, layout, options.reopen)) {
    if (read.kind !== 'record') continue;
    const record = cveFromCve5(read, log);
    if (!record) continue;
    yielded += 1;
    yield record;
  }
  log.flush();
  if (yielded === 0)
    throw new FeedError(
      'Not a CVE JSON 5 record: no "cveMetadata" with a cveId (nor an array of such records) was found.',
    );
}

/** How sure it is that a file is CVE JSON 5. */
export function detectCve5(head: string): number {
  if (/"dataType"\s*:\s*"CVE_RECORD"/.test(head)) return 1;
  return /"cveMetadata"\s*:\s*\{/.test(head) && /"containers"\s*:\s*\{/.test(head) ? 0.9 : 0;
}

export const cve5Feed: FeedReader<'cve5'> = { feed: 'cve5', detect: detectCve5, read: readCve5 };
