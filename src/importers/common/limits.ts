import type { ParseContext } from '../types.js';

/** Appended to any text that was cut. */
export const TRUNCATION_MARK = '… [truncated]';

/** `text` cut to at most `max` characters, the marker included, never splitting a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - TRUNCATION_MARK.length);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + TRUNCATION_MARK;
}

export interface TextLimits {
  /** Trimmed and cut to maxFieldChars; undefined when empty or absent. */
  field(text: string | undefined, what: string): string | undefined;
  /** Trimmed and cut to maxEvidenceChars; undefined when empty or absent. */
  evidence(text: string | undefined): string | undefined;
}

/**
 * Caps text fields to the import's limits. Each kind of cut is reported once per report (a
 * warning per finding would bury the others).
 */
export function textLimits(context: ParseContext): TextLimits {
  const warned = new Set<string>();
  const limit = (text: string | undefined, max: number, what: string) => {
    const trimmed = text?.trim();
    if (!trimmed) return undefined;
    if (trimmed.length > max && !warned.has(what)) {
      warned.add(what);
      context.warn(`Some ${what} texts were longer than ${max} characters and were cut.`);
    }
    return cut(trimmed, max);
  };
  return {
    field: (text, what) => limit(text, context.maxFieldChars, what),
    evidence: (text) => limit(text, context.maxEvidenceChars, 'evidence'),
  };
}
