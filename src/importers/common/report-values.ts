/**
 * Small readers for values scanner reports write as text: lists, scores, dates, links. Used by
 * the Nessus, OpenVAS and Qualys importers.
 */

/** The list, or undefined when it is empty (records leave out what the report does not say). */
export function nonEmpty<T>(values: readonly T[]): T[] | undefined {
  return values.length > 0 ? [...values] : undefined;
}

/** The values that are set, trimmed, in order, without repeats. */
export function unique(values: Iterable<string | undefined>): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const text = value?.trim();
    if (text) seen.add(text);
  }
  return [...seen];
}

/** A CVSS score (0.0–10.0) at the start of a text such as "7.5" or "8.1 (AV:N/…)". */
export function leadingScore(raw: string | undefined): number | undefined {
  const match = raw?.trim().match(/^(\d{1,2}(?:\.\d+)?)(?![\d.])/);
  if (!match) return undefined;
  const score = Number(match[1]);
  return score >= 0 && score <= 10 ? score : undefined;
}

/** The text inside the first parentheses: "7.4 (E:U/RL:U/RC:C)" gives "E:U/RL:U/RC:C". */
export function parenthesised(raw: string | undefined): string | undefined {
  const match = raw?.match(/\(([^()]+)\)/);
  return match?.[1]?.trim() || undefined;
}

/**
 * A date as "YYYY-MM-DD" from the forms reports use: "2020/10/29", "2020-10-29T…",
 * "Aug 24, 2016 12:00:00 UTC". Undefined for anything else ("N/A", empty).
 */
export function isoDate(raw: string | undefined): string | undefined {
  const text = raw?.trim();
  if (!text) return undefined;
  const numeric = text.match(/^(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?=$|[T\s])/);
  if (numeric) return `${numeric[1]}-${numeric[2]!.padStart(2, '0')}-${numeric[3]!.padStart(2, '0')}`;
  if (!/^[A-Za-z]{3,9} \d{1,2}, \d{4}\b/.test(text)) return undefined;
  const parsed = new Date(text.replace(/ UTC$/, ' GMT'));
  return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString().slice(0, 10);
}

/** The http(s) URLs in a text where they are separated by white space or commas. */
export function httpUrlsIn(text: string | undefined): string[] {
  if (!text) return [];
  return unique(text.split(/[\s,]+/).filter((part) => /^https?:\/\/\S+$/i.test(part)));
}

/** The object without its undefined properties: records only say what the report says. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Keys seen so far, to report each thing once (a service per host and port). Past `max` keys it
 * forgets them all, so memory stays bounded; a repeat reported again is merged on import.
 */
export class SeenKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly max = 100_000) {}

  /** True the first time `key` is seen. */
  first(key: string): boolean {
    if (this.keys.has(key)) return false;
    if (this.keys.size >= this.max) this.keys.clear();
    this.keys.add(key);
    return true;
  }
}
