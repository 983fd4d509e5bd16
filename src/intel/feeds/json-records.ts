/**
 * Streaming JSON records for the feed readers, on top of the shared jsonValues: a file holds
 * one record (a bare NVD `cve`, one CVE 5 record, one OSV advisory) or many (an NVD page's
 * `vulnerabilities[].cve`, a JSON array of records). Each record is rebuilt from the parts a
 * layout picks, with caps applied as the parts stream in:
 *
 * - only picked paths are assembled; everything else is skipped token by token;
 * - arrays keep at most `maxItems[key]` elements per record (default 1,000), the rest are
 *   counted in `dropped`, never kept;
 * - strings are cut while they stream (MAX_STREAMED_CHARS), and `keep` can refuse a part
 *   (a URL that is an object, a 2 MB CPE name) right after it is assembled.
 *
 * Memory is therefore bounded by the caps, plus one picked part at a time. Layouts pick single
 * fields of the arrays that can be long (references, CPE matches) and whole elements only of
 * the short ones (metrics, descriptions), so a part is small unless a hostile file nests a huge
 * value inside one element: that one element is assembled whole (strings still cut), then
 * dropped or kept like any other.
 */
import type { Readable } from 'node:stream';
import { type JsonKind, type JsonPath, jsonValues, locateJsonError } from '../../parsing/json.js';
import { ParseLimitError } from '../../parsing/parse-limits.js';
import { ReportError } from '../../parsing/report-error.js';
import { FeedError } from './errors.js';
import { plainInput } from './input.js';
import { MAX_STREAMED_CHARS } from './text.js';

export type { JsonKind, JsonPath };

export type JsonRecord = Record<string, unknown>;

export interface RecordLayout {
  /** The record a path belongs to and the path inside it; undefined for paths outside any record. */
  locate(path: JsonPath): { record: number; inner: JsonPath } | undefined;
  /** Whether the value at `inner` (a path inside a record) is assembled and placed in the record. */
  pick(inner: JsonPath): boolean;
  /** Whether a picked value is kept (a layout refuses wrong types and oversized values here). */
  keep?(inner: JsonPath, value: unknown): boolean;
  /** Values outside records worth having: a page's or a catalogue's header fields. */
  pickOutside?(path: JsonPath): boolean;
  /** The most elements kept, per record, of the arrays under this key. */
  maxItems?: Readonly<Record<string, number>>;
  /**
   * Checks the file's shape as each value starts (a list that is a number, an entry that is not
   * an object): answers why the file is not the feed, or undefined. The read fails with it.
   */
  shape?(path: JsonPath, kind: JsonKind): string | undefined;
}

export interface RecordRead {
  kind: 'record';
  /** The record's position in the file (0 for a file that is one record). */
  index: number;
  value: JsonRecord;
  /** Elements left out by key, beyond maxItems. */
  dropped: Map<string, number>;
  /** How many of the record's strings were cut while streaming, and the paths of the first few. */
  truncated: { count: number; paths: string[] };
}

export interface OutsideRead {
  kind: 'outside';
  path: JsonPath;
  value: unknown;
}

const DEFAULT_MAX_ITEMS = 1000;
/** Paths of cut strings named in a warning. */
const SHOWN_PATHS = 3;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Streams the records of a JSON feed file (gzip is unpacked) as `layout` describes them. */
export async function* jsonRecords(
  source: Readable,
  layout: RecordLayout,
  reopen?: () => Readable,
): AsyncGenerator<RecordRead | OutsideRead> {
  const input = await plainInput(source);
  let inputError: FeedError | undefined;
  input.on('error', (error) => {
    if (error instanceof FeedError) inputError = error;
  });
  const truncated = new Map<number, { count: number; paths: string[] }>();
  const pick = (path: JsonPath) => {
    const at = layout.locate(path);
    if (at) return at.inner.length > 0 && layout.pick(at.inner);
    return layout.pickOutside?.(path) ?? false;
  };
  // Only cuts in what a record keeps matter; a skipped string may be as long as it likes.
  const isKept = (inner: JsonPath) => inner.some((_, i) => layout.pick(inner.slice(0, i + 1)));
  const onTruncated = (path: JsonPath) => {
    const at = layout.locate(path);
    if (!at || !isKept(at.inner)) return;
    // Records before the previous one are finished: what they left behind is dropped.
    for (const index of truncated.keys()) if (index < at.record - 1) truncated.delete(index);
    const cuts = truncated.get(at.record) ?? { count: 0, paths: [] };
    cuts.count += 1;
    if (cuts.paths.length < SHOWN_PATHS) cuts.paths.push(at.inner.join('.'));
    truncated.set(at.record, cuts);
  };
  let current: RecordBuilder | undefined;
  const finish = (builder: RecordBuilder): RecordRead => {
    const cut = truncated.get(builder.index) ?? { count: 0, paths: [] };
    truncated.delete(builder.index);
    return {
      kind: 'record',
      index: builder.index,
      value: builder.value,
      dropped: builder.dropped,
      truncated: cut,
    };
  };
  try {
    for await (const { path, value } of jsonValues(input, pick, {
      maxStringChars: MAX_STREAMED_CHARS,
      onTruncated,
      onValue: layout.shape
        ? (path, kind, at) => {
            const why = layout.shape?.(path, kind);
            if (!why) return;
            const where = at();
            throw new FeedError(why, where?.line, where?.column);
          }
        : undefined,
    })) {
      const at = layout.locate(path);
      if (!at) {
        yield { kind: 'outside', path, value };
        continue;
      }
      if (layout.keep && !layout.keep(at.inner, value)) continue;
      if (current && current.index !== at.record) {
        yield finish(current);
        current = undefined;
      }
      current ??= new RecordBuilder(at.record, layout.maxItems ?? {});
      current.place(at.inner, value);
    }
  } catch (error) {
    if (inputError) throw inputError;
    if (error instanceof ReportError) throw await located(error, reopen);
    throw error;
  } finally {
    // Stopping early (a failed read, a consumer that had enough) must release the file.
    input.destroy();
  }
  if (current) yield finish(current);
}

/** The JSON error with the line and column a second, validating read finds, when the file can be reopened. */
async function located(error: ReportError, reopen: (() => Readable) | undefined): Promise<FeedError> {
  // A limit knows where it was broken; a second read would only stop at the same place.
  if (error instanceof ParseLimitError) return new FeedError(error.what, error.line, error.column);
  // Only a syntax error needs the second read that finds where it is.
  if (!error.message.startsWith('Not valid JSON')) return new FeedError(error.message);
  const message = error.message.replace(/^Not valid JSON: /, 'The file is not valid JSON: ');
  if (!reopen) return new FeedError(message);
  const again = await plainInput(reopen()).catch(() => undefined);
  const at = again && (await locateJsonError(() => again).catch(() => undefined));
  return at ? new FeedError(message, at.line, at.column) : new FeedError(message);
}

function isObject(value: unknown): value is JsonRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One record being rebuilt from its picked parts. */
class RecordBuilder {
  readonly value: JsonRecord = {};
  readonly dropped = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private lastDropped = '';

  constructor(
    readonly index: number,
    private readonly maxItems: Readonly<Record<string, number>>,
  ) {}

  /** Puts `value` at `inner`, making the objects and arrays on the way; refused past an array's cap. */
  place(inner: JsonPath, value: unknown): void {
    let node: unknown = this.value;
    for (let i = 0; i < inner.length; i += 1) {
      const step = inner[i]!;
      const last = i === inner.length - 1;
      const fresh = last ? value : typeof inner[i + 1] === 'number' ? [] : {};
      if (typeof step === 'number') {
        if (!Array.isArray(node)) return;
        if (node[step] === undefined) {
          if (!this.admit(String(inner[i - 1]), inner.slice(0, i + 1).join('.'))) return;
          node[step] = fresh;
        } else if (last) node[step] = value;
        node = node[step];
      } else {
        if (!isObject(node) || UNSAFE_KEYS.has(step)) return;
        if (last || node[step] === undefined) node[step] = fresh;
        node = node[step];
      }
    }
  }

  /** Counts a new array element under `key`; false (and counted as dropped) beyond the cap. */
  private admit(key: string, element: string): boolean {
    const used = this.counts.get(key) ?? 0;
    const max = Object.hasOwn(this.maxItems, key) ? this.maxItems[key]! : DEFAULT_MAX_ITEMS;
    if (used < max) {
      this.counts.set(key, used + 1);
      return true;
    }
    // The parts of one dropped element arrive one after another: count the element once.
    if (element !== this.lastDropped) {
      this.dropped.set(key, (this.dropped.get(key) ?? 0) + 1);
      this.lastDropped = element;
    }
    return false;
  }
}

/** "a number", "an object", "null": what a value is, for messages about a file's shape. */
export function kindText(kind: JsonKind): string {
  if (kind === 'null') return 'null';
  return kind === 'object' || kind === 'array' ? `an ${kind}` : `a ${kind}`;
}

/** The elements of an array that made it into a record (dropped ones leave holes). */
export function items(value: unknown): unknown[] {
  return Array.isArray(value) ? value.filter((item) => item !== undefined && item !== null) : [];
}

/** Scalars only, with strings up to `maxChars`: what `keep` allows for single picked fields. */
export function isSmallScalar(value: unknown, maxChars: number): boolean {
  if (typeof value === 'string') return value.length <= maxChars;
  return typeof value === 'number' || typeof value === 'boolean';
}

/** Warns (grouped) about what the caps left out of a record and which of its texts were cut. */
export function noteCuts(
  read: RecordRead,
  id: string,
  log: { note(kind: string, message: string): void },
): void {
  for (const [key, count] of read.dropped)
    log.note(
      `records had more "${key}" entries than are kept`,
      `${id}: ${count} "${key}" entries beyond the cap were left out.`,
    );
  if (read.truncated.count > 0)
    log.note(
      'records had values longer than 32 KiB (texts were cut, other values dropped)',
      `${id}: ${read.truncated.count} value(s) longer than 32 KiB were cut or dropped (${read.truncated.paths.join(', ')}).`,
    );
}
