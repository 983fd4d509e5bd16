/**
 * NVD CVE API 2.0 JSON: a result page (`{ resultsPerPage, startIndex, totalResults, format:
 * "NVD_CVE", version: "2.0", timestamp, vulnerabilities: [{ cve: {…} }] }`, up to 2,000 records
 * and 100 MB) or one bare `cve` object (how mirrors such as fkie-cad/nvd-json-data-feeds store
 * one CVE per file). A gzip file (the yearly feeds) is unpacked while it streams.
 *
 * Read: id, vulnStatus (status; "Rejected" → rejected), published / lastModified (UTC, given
 * their "Z"), the English description, metrics cvssMetricV40 / V31 / V30 / V2 (vector, stated
 * base score, source, Primary/Secondary), ssvcV203 (CISA's SSVC), weaknesses (CWE ids; NVD's
 * own NVD-CWE-Other / NVD-CWE-noinfo are not CWEs and are left out), references (URLs without
 * repeats: NVD lists most twice, once per source), configurations (a missing operator is OR, a
 * missing negate false; CPE matches whose criteria is not a CPE 2.3 name are dropped), cveTags,
 * and cisaExploitAdd / cisaActionDue / cisaRequiredAction / cisaVulnerabilityName (kev).
 * Not read: other languages' descriptions, reference tags, the CNA `affected` data some mirror
 * records carry (the CVE 5 reader converts the CNA's own record), evaluator comments and notes.
 *
 * Warnings (grouped): records without a CVE id, CVSS metrics whose vector is not valid,
 * descriptions cut at 32 KiB, and lists beyond their caps (see MAX_ITEMS, MAX_REFERENCES).
 */
import type { Readable } from 'node:stream';
import { pathName } from '../../../parsing/json.js';
import type { CveRecord } from '../../types.js';
import { FeedError } from '../errors.js';
import {
  isSmallScalar,
  type JsonKind,
  type JsonPath,
  jsonRecords,
  kindText,
  type RecordLayout,
} from '../json-records.js';
import { MAX_SHORT_CHARS, MAX_STREAMED_CHARS, MAX_URL_CHARS, WarningLog } from '../text.js';
import type { FeedHeader, FeedReader, FeedReadOptions } from '../types.js';
import { cveFromNvd, METRIC_KINDS } from './convert.js';

const PAGE_KEYS = new Set(['resultsPerPage', 'startIndex', 'totalResults', 'format', 'version', 'timestamp']);
/** The retired NVD 1.1 feeds: refused with a message that says so. */
const LEGACY_KEYS = new Set(['CVE_data_format', 'CVE_data_type', 'CVE_Items']);

const SCALARS = new Set([
  'id',
  'vulnStatus',
  'published',
  'lastModified',
  'sourceIdentifier',
  'cisaExploitAdd',
  'cisaActionDue',
  'cisaRequiredAction',
  'cisaVulnerabilityName',
]);
/** Short lists, picked an element at a time. */
const ELEMENT_LISTS = new Set(['descriptions', 'weaknesses', 'cveTags']);
const CPE_FIELDS = new Set([
  'criteria',
  'vulnerable',
  'versionStartIncluding',
  'versionStartExcluding',
  'versionEndIncluding',
  'versionEndExcluding',
  'matchCriteriaId',
]);

/** Per record. Real records stay far below (the largest NVD configurations have a few thousand matches). */
export const MAX_ITEMS: Readonly<Record<string, number>> = {
  descriptions: 50,
  weaknesses: 50,
  cveTags: 20,
  references: 1000,
  configurations: 1000,
  nodes: 5000,
  cpeMatch: 20000,
  ...Object.fromEntries(METRIC_KINDS.map((kind) => [kind, 50])),
};

function locate(path: JsonPath): { record: number; inner: JsonPath } | undefined {
  const [first] = path;
  if (first === 'vulnerabilities')
    return typeof path[1] === 'number' && path[2] === 'cve'
      ? { record: path[1], inner: path.slice(3) }
      : undefined;
  if (typeof first !== 'string' || PAGE_KEYS.has(first) || LEGACY_KEYS.has(first)) return undefined;
  return { record: 0, inner: path };
}

function pick(inner: JsonPath): boolean {
  const [key, a, b, c, d, e, f] = inner;
  switch (inner.length) {
    case 1:
      return SCALARS.has(key as string);
    case 2:
      return ELEMENT_LISTS.has(key as string) && typeof a === 'number';
    case 3:
      if (key === 'references') return typeof a === 'number' && b === 'url';
      if (key === 'metrics') return METRIC_KINDS.includes(a as string) && typeof b === 'number';
      return key === 'configurations' && typeof a === 'number' && (b === 'operator' || b === 'negate');
    case 5:
      return (
        key === 'configurations' &&
        b === 'nodes' &&
        typeof c === 'number' &&
        (d === 'operator' || d === 'negate')
      );
    case 7:
      return (
        key === 'configurations' &&
        b === 'nodes' &&
        d === 'cpeMatch' &&
        typeof e === 'number' &&
        CPE_FIELDS.has(f as string)
      );
    default:
      return false;
  }
}

/** Whole elements (metrics, descriptions…) as they are; single fields only as small scalars. */
function keep(inner: JsonPath, value: unknown): boolean {
  if (inner.length === 1) return isSmallScalar(value, MAX_STREAMED_CHARS);
  if (typeof inner[inner.length - 1] === 'number') return true;
  return isSmallScalar(value, inner[0] === 'references' ? MAX_URL_CHARS : MAX_SHORT_CHARS);
}

/** Why a page is not an NVD page, from the kind of a value whose kind the format fixes. */
function shape(path: JsonPath, kind: JsonKind): string | undefined {
  if (path[0] !== 'vulnerabilities' || path.length > 3) return undefined;
  const expected =
    path.length === 1
      ? { kind: 'array', what: 'a list of { "cve": … } objects' }
      : path.length === 2
        ? { kind: 'object', what: 'a { "cve": … } object' }
        : path[2] === 'cve'
          ? { kind: 'object', what: 'a CVE object' }
          : undefined;
  if (!expected || kind === expected.kind) return undefined;
  return `Not an NVD CVE API 2.0 page: ${pathName(path)} is ${kindText(kind)}, not ${expected.what}.`;
}

const layout: RecordLayout = {
  locate,
  pick,
  keep,
  shape,
  pickOutside: (path) =>
    path.length === 1 && (PAGE_KEYS.has(path[0] as string) || LEGACY_KEYS.has(path[0] as string)),
  maxItems: MAX_ITEMS,
};

/** The CVE records of an NVD API 2.0 page or bare `cve` file. */
export async function* readNvd(input: Readable, options: FeedReadOptions): AsyncGenerator<CveRecord> {
  const log = new WarningLog(options.warn);
  const page = new PageHeader(options);
  let yielded = 0;
  // Entries of the page's list, and those that held a record: the others have no "cve" to read.
  let entries = 0;
  let records = 0;
  const counting: RecordLayout = {
    ...layout,
    shape: (path, kind) => {
      if (path.length === 2 && path[0] === 'vulnerabilities') entries += 1;
      return shape(path, kind);
    },
  };
  for await (const read of jsonRecords(input, counting, options.reopen)) {
    if (read.kind === 'outside') {
      page.take(read.path[0] as string, read.value);
      continue;
    }
    records += 1;
    page.send();
    const record = cveFromNvd(read, log);
    if (!record) continue;
    yielded += 1;
    yield record;
  }
  page.send();
  // A page may hold no records; a file that is one bare record must hold a CVE.
  if (yielded === 0 && !page.seen)
    throw new FeedError(
      'Not an NVD CVE API 2.0 file: it has neither a "vulnerabilities" list of { "cve": … } objects nor a CVE with its id at its top level.',
    );
  if (entries > 0 && records === 0)
    throw new FeedError(
      `Not an NVD CVE API 2.0 page: none of its ${entries} "vulnerabilities" entries holds a "cve" object with fields to read.`,
    );
  if (entries > records)
    log.note(
      'page entries without a "cve" object were skipped',
      `${entries - records} "vulnerabilities" entries hold no "cve" object with fields to read; they were skipped.`,
    );
  log.flush();
}

/** The fields of a result page, checked as they come and handed on once. */
class PageHeader {
  private readonly header: Extract<FeedHeader, { feed: 'nvd' }> = { feed: 'nvd' };
  seen = false;
  private sent = false;

  constructor(private readonly options: FeedReadOptions) {}

  take(key: string, value: unknown): void {
    if (LEGACY_KEYS.has(key))
      throw new FeedError(
        'This is an NVD 1.1 JSON feed (CVE_Items), retired in 2023; only the CVE API 2.0 format is read.',
      );
    if (key === 'format' && value !== 'NVD_CVE')
      throw new FeedError(`Not an NVD CVE API page: its format is ${JSON.stringify(value)}, not "NVD_CVE".`);
    this.seen = true;
    if (key === 'timestamp' && typeof value === 'string') this.header.timestamp = value;
    if (
      (key === 'totalResults' || key === 'startIndex' || key === 'resultsPerPage') &&
      typeof value === 'number'
    )
      this.header[key] = value;
  }

  /** The header goes out before the first record (the API writes it first) or at the end. */
  send(): void {
    if (this.sent || !this.seen) return;
    this.sent = true;
    this.options.onHeader?.(this.header);
  }
}

/** How sure it is that a file is NVD CVE API 2.0 JSON. */
export function detectNvd(head: string): number {
  if (/"format"\s*:\s*"NVD_CVE"/.test(head)) return 1;
  if (/"CVE_data_format"|"CVE_Items"/.test(head)) return 0;
  const cveFields =
    /"id"\s*:\s*"CVE-\d{4}-\d{4,}"/.test(head) &&
    /"sourceIdentifier"\s*:/.test(head) &&
    /"vulnStatus"\s*:/.test(head);
  if (!cveFields) return 0;
  return /"vulnerabilities"\s*:\s*\[\s*\{\s*"cve"\s*:/.test(head) ? 0.95 : 0.9;
}

export const nvdFeed: FeedReader<'nvd'> = { feed: 'nvd', detect: detectNvd, read: readNvd };
