import { cut } from '../../parsing/text-cut.js';
import type { ParseContext } from '../types.js';

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
