/**
 * The CISA Known Exploited Vulnerabilities catalogue, JSON form (known_exploited_vulnerabilities
 * .json: `{ title, catalogVersion, dateReleased, count, vulnerabilities: [...] }`).
 *
 * The header (catalogVersion, dateReleased, count, title) goes to `onHeader` before the first
 * entry when catalogVersion and dateReleased come before the entries (as in CISA's file), else
 * at the end. A `count` that differs from
 * the entries read is a warning.
 *
 * Entries → KevEntry: cveID, vendorProject → vendor, product, vulnerabilityName → name,
 * shortDescription → description, dateAdded, dueDate, requiredAction, notes, cwes → cweIds,
 * knownRansomwareCampaignUse "Known" → true (anything else, "Unknown" included, → false).
 * An entry without a valid cveID, vendorProject, product, vulnerabilityName, dateAdded or dueDate
 * (all required by CISA's schema) is skipped with a warning.
 */
import type { Readable } from 'node:stream';
import { pathName } from '../../../parsing/json.js';
import type { JsonObject } from '../../../parsing/json-fields.js';
import type { KevEntry } from '../../types.js';
import { FeedError } from '../errors.js';
import {
  isSmallScalar,
  items,
  type JsonKind,
  type JsonPath,
  jsonRecords,
  kindText,
  noteCuts,
  type RecordLayout,
} from '../json-records.js';
import { cleanText, cveIdOf, cweIdOf, distinct, isoDate, MAX_STREAMED_CHARS, WarningLog } from '../text.js';
import type { FeedHeader, FeedReader, FeedReadOptions } from '../types.js';

const HEADER_KEYS = new Set(['title', 'catalogVersion', 'dateReleased', 'count']);
const ENTRY_FIELDS = new Set([
  'cveID',
  'vendorProject',
  'product',
  'vulnerabilityName',
  'dateAdded',
  'shortDescription',
  'requiredAction',
  'dueDate',
  'knownRansomwareCampaignUse',
  'notes',
]);

/** Why a file is not the catalogue, from the kind of its list and of its entries. */
function shape(path: JsonPath, kind: JsonKind): string | undefined {
  if (path[0] !== 'vulnerabilities') return undefined;
  if (path.length === 1 && kind !== 'array')
    return `Not a CISA KEV catalogue: "vulnerabilities" is ${kindText(kind)}, not a list of entries.`;
  if (path.length === 2 && kind !== 'object')
    return `Not a CISA KEV catalogue: ${pathName(path)} is ${kindText(kind)}, not an entry object.`;
  return undefined;
}

const layout: RecordLayout = {
  shape,
  locate: (path: JsonPath) =>
    path[0] === 'vulnerabilities' && typeof path[1] === 'number'
      ? { record: path[1], inner: path.slice(2) }
      : undefined,
  pick: (inner) =>
    (inner.length === 1 && ENTRY_FIELDS.has(inner[0] as string)) ||
    (inner.length === 2 && inner[0] === 'cwes' && typeof inner[1] === 'number'),
  keep: (_inner, value) => isSmallScalar(value, MAX_STREAMED_CHARS),
  pickOutside: (path) => path.length === 1 && HEADER_KEYS.has(path[0] as string),
  maxItems: { cwes: 50 },
};

/** The entries of a KEV catalogue, its header through `options.onHeader`. */
export async function* readKev(input: Readable, options: FeedReadOptions): AsyncGenerator<KevEntry> {
  const log = new WarningLog(options.warn);
  const header = new CatalogHeader(options);
  let read = 0;
  let listed = false;
  let entries = 0;
  const watching: RecordLayout = {
    ...layout,
    shape: (path, kind) => {
      if (path[0] === 'vulnerabilities' && path.length <= 2) {
        if (path.length === 1) listed = true;
        else entries += 1;
      }
      return shape(path, kind);
    },
  };
  for await (const part of jsonRecords(input, watching, options.reopen)) {
    if (part.kind === 'outside') {
      header.take(part.path[0] as string, part.value);
      continue;
    }
    header.sendWhenKnown();
    read += 1;
    const entry = kevEntryOf(part.value, part.index, log);
    if (!entry) continue;
    noteCuts(part, entry.cveId, log);
    yield entry;
  }
  if (read === 0 && !header.known)
    throw new FeedError(
      'Not a CISA KEV catalogue: it has no "catalogVersion" and no "vulnerabilities" entries with a cveID.',
    );
  if (!listed) throw new FeedError('Not a CISA KEV catalogue: it has no "vulnerabilities" list.');
  if (entries > 0 && read === 0)
    throw new FeedError(
      `Not a CISA KEV catalogue: none of its ${entries} "vulnerabilities" entries holds a field of a KEV entry (cveID, vendorProject, …).`,
    );
  header.finish(read);
  log.flush();
}

class CatalogHeader {
  private readonly fields: JsonObject = {};
  private sent = false;

  constructor(private readonly options: FeedReadOptions) {}

  get known(): boolean {
    return typeof this.fields.catalogVersion === 'string';
  }

  take(key: string, value: unknown): void {
    this.fields[key] = value;
  }

  /** Called before the first entry: by then CISA's file has given every header field. */
  sendWhenKnown(): void {
    if (this.sent || !this.known || typeof this.fields.dateReleased !== 'string') return;
    this.sent = true;
    this.options.onHeader?.(this.header());
  }

  finish(entries: number): void {
    if (!this.sent && this.known) {
      this.sent = true;
      this.options.onHeader?.(this.header());
    }
    if (!this.known) this.options.warn('The KEV catalogue names no catalogVersion.');
    const count = this.fields.count;
    if (typeof count === 'number' && count !== entries)
      this.options.warn(`The KEV catalogue says it has ${count} entries; ${entries} were read.`);
  }

  private header(): FeedHeader {
    const header: FeedHeader = {
      feed: 'kev',
      catalogVersion: String(this.fields.catalogVersion),
      dateReleased: typeof this.fields.dateReleased === 'string' ? this.fields.dateReleased : '',
    };
    if (typeof this.fields.count === 'number') header.count = this.fields.count;
    if (typeof this.fields.title === 'string') header.title = this.fields.title;
    return header;
  }
}

/** One catalogue entry as a KevEntry; undefined (with a warning) when a required field is missing. */
function kevEntryOf(raw: JsonObject, index: number, log: WarningLog): KevEntry | undefined {
  const entry = {
    cveId: cveIdOf(raw.cveID),
    vendor: cleanText(raw.vendorProject),
    product: cleanText(raw.product),
    name: cleanText(raw.vulnerabilityName),
    dateAdded: isoDate(raw.dateAdded),
    dueDate: isoDate(raw.dueDate),
  };
  const missing = Object.entries(entry)
    .filter(([, value]) => value === undefined)
    .map(([key]) => key);
  if (missing.length > 0) {
    log.note(
      'KEV entries without a required field were skipped',
      `KEV entry #${index + 1}${entry.cveId ? ` (${entry.cveId})` : ''} lacks ${missing.join(', ')}; skipped.`,
    );
    return undefined;
  }
  const kev: KevEntry = {
    ...(entry as Omit<KevEntry, 'knownRansomwareUse' | 'cweIds'>),
    knownRansomwareUse:
      typeof raw.knownRansomwareCampaignUse === 'string' &&
      /^known$/i.test(raw.knownRansomwareCampaignUse.trim()),
    cweIds: distinct(items(raw.cwes).map(cweIdOf)),
  };
  const description = cleanText(raw.shortDescription);
  if (description) kev.description = description;
  const requiredAction = cleanText(raw.requiredAction);
  if (requiredAction) kev.requiredAction = requiredAction;
  const notes = cleanText(raw.notes);
  if (notes) kev.notes = notes;
  return kev;
}

/** How sure it is that a file is the KEV catalogue (its schema, beside it, is not). */
export function detectKev(head: string): number {
  if (/"catalogVersion"\s*:\s*"/.test(head) && /"vulnerabilities"\s*:\s*\[/.test(head)) return 1;
  if (/"cveID"\s*:\s*"CVE-/.test(head) && /"vendorProject"\s*:/.test(head) && /"dueDate"\s*:/.test(head))
    return 0.8;
  return 0;
}

export const kevFeed: FeedReader<'kev'> = { feed: 'kev', detect: detectKev, read: readKev };
