/**
 * Field helpers shared by the feed readers: capped, cleaned text; reference lists; CVE and CWE
 * ids; timestamps; and a warning log that does not let one hostile file bury the others.
 */
import { isCveId } from '../../parsing/ids.js';
import { cut } from '../../parsing/text-cut.js';

/** Descriptions, details and any other text are cut (with a marker) beyond this. */
export const MAX_TEXT_CHARS = 32 * 1024;
/** References kept per record, after repeats are removed. */
export const MAX_REFERENCES = 200;
/** A reference longer than this is not a URL anyone can use; it is dropped. */
export const MAX_URL_CHARS = 2048;
/** Ids, versions, CPE names and other short values longer than this are dropped. */
export const MAX_SHORT_CHARS = 512;
/** What the JSON readers let a string grow to while it streams in: just enough to know it was cut. */
export const MAX_STREAMED_CHARS = MAX_TEXT_CHARS + 1;

/** Control characters other than tab and line ends: PostgreSQL text refuses NUL, and none is readable. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Trimmed text without control characters, cut to `max` (marker included); undefined when empty. */
export function cleanText(value: unknown, max = MAX_TEXT_CHARS): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(CONTROL, '').trim();
  return text ? cut(text, max) : undefined;
}

/** A short value (id, version, name) as given, trimmed; undefined when empty, not text or too long. */
export function shortText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const text = value.replace(CONTROL, '').trim();
  return text && text.length <= MAX_SHORT_CHARS ? text : undefined;
}

/** The URLs of a list, trimmed, without repeats, at most MAX_REFERENCES; `dropped` counts the rest. */
export function referenceUrls(urls: Iterable<unknown>): { urls: string[]; dropped: number } {
  const kept = new Set<string>();
  let dropped = 0;
  for (const raw of urls) {
    const url = typeof raw === 'string' ? raw.trim() : '';
    if (!url || url.length > MAX_URL_CHARS || kept.has(url)) continue;
    if (kept.size >= MAX_REFERENCES) dropped += 1;
    else kept.add(url);
  }
  return { urls: [...kept], dropped };
}

/** "CVE-2024-6387" in upper case, or undefined when the value is not one CVE id. */
export function cveIdOf(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.trim() : '';
  return isCveId(text) ? text.toUpperCase() : undefined;
}

/** "CWE-79" for "CWE-79" / "cwe-079"; undefined for anything else (NVD-CWE-Other, NVD-CWE-noinfo…). */
export function cweIdOf(value: unknown): string | undefined {
  const match = typeof value === 'string' ? /^CWE-(\d{1,6})$/i.exec(value.trim()) : null;
  return match ? `CWE-${Number(match[1])}` : undefined;
}

/** The distinct values of a list, in order. */
export function distinct<T>(values: Iterable<T | undefined>): T[] {
  const seen = new Set<T>();
  for (const value of values) if (value !== undefined) seen.add(value);
  return [...seen];
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * An ISO 8601 timestamp. NVD and CVE 5 write UTC times without a zone ("2024-07-01T13:15:06.467"):
 * they get their "Z" so that nothing later reads them as local time. A bare date is kept as it is.
 */
export function timestamp(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.trim() : '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const zoned = match[3] ? text : `${text}Z`;
  return Number.isNaN(Date.parse(zoned)) ? undefined : zoned;
}

/** A YYYY-MM-DD date (the leading date of a timestamp is accepted). */
export function isoDate(value: unknown): string | undefined {
  const match = typeof value === 'string' ? /^(\d{4}-\d{2}-\d{2})(T|$)/.exec(value.trim()) : null;
  return match && !Number.isNaN(Date.parse(match[1]!)) ? match[1] : undefined;
}

/** How many warnings of one kind are written out before the rest are only counted. */
const SHOWN_PER_KIND = 5;

/**
 * Warnings of a read, grouped by kind: the first few of each kind are passed on as they come,
 * the rest are counted and summed up by `flush()` at the end, so that a file with a thousand
 * oversized descriptions gives six lines, not a thousand.
 */
export class WarningLog {
  private readonly counts = new Map<string, number>();

  constructor(private readonly warn: (message: string) => void) {}

  note(kind: string, message: string): void {
    const count = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, count);
    if (count <= SHOWN_PER_KIND) this.warn(message);
  }

  flush(): void {
    for (const [kind, count] of this.counts)
      if (count > SHOWN_PER_KIND) this.warn(`${count - SHOWN_PER_KIND} more: ${kind}.`);
    this.counts.clear();
  }
}
