// Bounded, printable views of what a service sent. Banners come from anyone on the network: only
// the first few kilobytes are ever read, lines are cut, and control characters never reach a
// regular expression or the evidence text.

/** Bytes of a banner that are looked at; the rest is ignored. */
export const MAX_BANNER_BYTES = 8192;
/** Characters of one line that are looked at. */
export const MAX_LINE_CHARS = 512;
/** Lines of a banner that are looked at. */
export const MAX_LINES = 64;
export const MAX_EVIDENCE_CHARS = 200;

/** The first MAX_BANNER_BYTES of a banner as text (bytes read as Latin-1, which cannot fail). */
export function bannerText(banner: string | Buffer): string {
  if (typeof banner === 'string') return banner.slice(0, MAX_BANNER_BYTES);
  return banner.subarray(0, MAX_BANNER_BYTES).toString('latin1');
}

/** The banner's first lines, each cut to MAX_LINE_CHARS, control characters turned into spaces. */
export function bannerLines(text: string): string[] {
  return text
    .split(/\r?\n/, MAX_LINES)
    .map((line) => printable(line.slice(0, MAX_LINE_CHARS)))
    .filter((line) => line.trim() !== '');
}

/** Control characters (C0, DEL, C1) become spaces so that they cannot forge log lines or output. */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Evidence: printable, trimmed, at most MAX_EVIDENCE_CHARS characters. */
export function evidence(text: string): string {
  return printable(text).trim().slice(0, MAX_EVIDENCE_CHARS);
}
