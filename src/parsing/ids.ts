const CVE = /\bCVE-\d{4}-\d{4,7}\b/gi;
const CWE = /\bCWE-(\d{1,6})\b/gi;

/** The CVE ids named in a text, upper case, in order, without repeats. */
export function cveIdsIn(text: string | undefined): string[] {
  if (!text) return [];
  return [...new Set(Array.from(text.matchAll(CVE), (m) => m[0].toUpperCase()))];
}

/** The CWE ids ("CWE-79") named in a text, in order, without repeats. */
export function cweIdsIn(text: string | undefined): string[] {
  if (!text) return [];
  return [...new Set(Array.from(text.matchAll(CWE), (m) => `CWE-${Number(m[1])}`))];
}

/** "CWE-79" for a bare number as tools write it; undefined for the "none" values (-1, 0, empty). */
export function cweId(value: string | number | undefined): string | undefined {
  const n = Number(String(value ?? '').trim());
  return Number.isInteger(n) && n > 0 ? `CWE-${n}` : undefined;
}

/** True for a single CVE id such as "cve-2023-38408". */
export function isCveId(value: string): boolean {
  return /^CVE-\d{4}-\d{4,7}$/i.test(value);
}
