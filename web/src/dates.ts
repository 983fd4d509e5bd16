// How the app writes and reads days. One style everywhere: what a table shows ("Nov 24, 2026" in
// American English, "24 Nov 2026" in British English, "24.11.2026" in German) is what a date
// field shows and accepts, in the user's locale. Free of React and DOM, so tests can import it.

/** The one date style of the app: the user's locale, medium length. */
export const DATE_STYLE = { dateStyle: 'medium' } as const satisfies Intl.DateTimeFormatOptions;

/** The same with the time of day, for moments (last seen, created). */
export const DATE_TIME_STYLE = {
  ...DATE_STYLE,
  timeStyle: 'short',
} as const satisfies Intl.DateTimeFormatOptions;

const ISO_DAY = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

/** A day (YYYY-MM-DD) in the app's style, e.g. "Nov 24, 2026"; '' for what is no day. */
export function formatDay(day: string, locale?: string): string {
  const parsed = isoDay(day);
  if (!parsed) return '';
  return new Intl.DateTimeFormat(locale, { ...DATE_STYLE, timeZone: 'UTC' }).format(
    Date.UTC(parsed.year, parsed.month - 1, parsed.day),
  );
}

/**
 * How a date should be written, for hints and errors: today (the browser's day) in the app's
 * style. A fixed sample day would pass and then read as a due date in the past.
 */
export function dayExample(locale?: string, now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return formatDay(`${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`, locale);
}

/**
 * The day (YYYY-MM-DD) a person typed: the app's style in their locale ("Nov 24, 2026",
 * "November 24 2026", "24 Nov 2026"), or ISO 8601 (2026-11-24). Undefined for anything else —
 * including all-number dates in a locale whose style names the month (is 11/12/2026 the 11th of
 * December or the 12th of November?) and days that do not exist (Feb 30).
 */
export function parseDay(text: string, locale?: string): string | undefined {
  const trimmed = text.trim();
  const iso = ISO_DAY.exec(trimmed);
  if (iso) return validDay(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const tokens = trimmed.match(/\d+|[\p{L}\p{M}]+\.?/gu);
  if (!tokens) return undefined;
  const style = localeStyle(locale);
  const numbers = tokens.filter((t) => /^\d+$/.test(t));
  const words = tokens.filter((t) => !/^\d+$/.test(t)).map((w) => normaliseWord(w, style.locale));
  const monthWords = words.filter((w) => style.months.has(w));
  // Any other word must be part of the style itself (the "de" of "24 de nov. de 2026").
  if (words.some((w) => !style.months.has(w) && !style.literals.has(w))) return undefined;
  if (monthWords.length === 1) {
    if (numbers.length !== 2) return undefined;
    const year = numbers.find((n) => n.length === 4);
    const day = numbers.find((n) => n.length <= 2);
    if (!year || !day) return undefined;
    return validDay(Number(year), style.months.get(monthWords[0] as string) as number, Number(day));
  }
  if (monthWords.length > 1 || !style.numericMonth || numbers.length !== 3) return undefined;
  const value = (part: 'day' | 'month' | 'year') => numbers[style.order.indexOf(part)] as string;
  if (value('year').length !== 4) return undefined;
  return validDay(Number(value('year')), Number(value('month')), Number(value('day')));
}

interface LocaleStyle {
  locale: string;
  /** The order of the parts in the app's style, e.g. month, day, year. */
  order: ('day' | 'month' | 'year')[];
  /** The style writes the month as a number (24.11.2026) rather than a name. */
  numericMonth: boolean;
  /** Month names and abbreviations (lower case, without a final dot) → 1..12. */
  months: Map<string, number>;
  /** Words the style itself writes around the parts. */
  literals: Set<string>;
}

const styles = new Map<string, LocaleStyle>();

function localeStyle(locale?: string): LocaleStyle {
  const format = new Intl.DateTimeFormat(locale, { ...DATE_STYLE, timeZone: 'UTC' });
  const resolved = format.resolvedOptions().locale;
  const known = styles.get(resolved);
  if (known) return known;
  // The 24th of November: day, month and year are three different numbers.
  const parts = format.formatToParts(Date.UTC(2026, 10, 24));
  const order = parts
    .map((p) => p.type)
    .filter((t): t is 'day' | 'month' | 'year' => t === 'day' || t === 'month' || t === 'year');
  const monthPart = parts.find((p) => p.type === 'month')?.value ?? '';
  const literals = new Set(
    parts
      .filter((p) => p.type === 'literal')
      .flatMap((p) => p.value.match(/[\p{L}\p{M}]+\.?/gu) ?? [])
      .map((w) => normaliseWord(w, resolved)),
  );
  const months = new Map<string, number>();
  // The month as the style writes it, its long and short names, and English as a last resort.
  const namers = [
    (d: number) => format.formatToParts(d).find((p) => p.type === 'month')?.value ?? '',
    ...[resolved, 'en'].flatMap((l) =>
      (['long', 'short'] as const).map((month) => {
        const f = new Intl.DateTimeFormat(l, { month, timeZone: 'UTC' });
        return (d: number) => f.format(d);
      }),
    ),
  ];
  for (let m = 0; m < 12; m++) {
    for (const name of namers) {
      const word = normaliseWord(name(Date.UTC(2026, m, 15)), resolved);
      if (word && !/^\d+$/.test(word) && !months.has(word)) months.set(word, m + 1);
    }
  }
  const style = { locale: resolved, order, numericMonth: /^\d+$/.test(monthPart), months, literals };
  styles.set(resolved, style);
  return style;
}

function normaliseWord(word: string, locale: string): string {
  return word.toLocaleLowerCase(locale).replace(/\.$/, '');
}

function isoDay(text: string): { year: number; month: number; day: number } | undefined {
  const m = ISO_DAY.exec(text.slice(0, 10));
  return m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : undefined;
}

function validDay(year: number, month: number, day: number): string | undefined {
  if (year < 1000 || year > 9999 || month < 1 || month > 12 || day < 1) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** Whole days from one ISO time to another (the server's "now", never the browser's clock). */
export function daysBetween(from: string, to: string): number {
  const ms = new Date(to).getTime() - new Date(from).getTime();
  return Number.isNaN(ms) ? 0 : Math.max(0, Math.floor(ms / 86_400_000));
}
