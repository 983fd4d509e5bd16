// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it looks for
const SUSPECT = /[\u0000\ud800-\udfff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it looks for
const NUL = /\u0000/g;
/** A UTF-16 surrogate that is not one half of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The text without what PostgreSQL cannot store: a NUL is dropped (text refuses it; the readers
 * drop the other control characters too), and a lone UTF-16 surrogate becomes U+FFFD, the
 * replacement character, as any UTF-8 encoder makes it (JSON may escape one, "\ud800", as tools
 * that cut a string mid-pair write it; jsonb refuses it). The rest of the report is worth more
 * than one unreadable character, and U+FFFD shows where it was.
 */
export function wellFormed(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return text.replace(NUL, '').replace(LONE_SURROGATE, '\ufffd');
}
