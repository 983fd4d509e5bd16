/**
 * The little of CPE naming the CVE 5 reader needs to write NVD-style match criteria: reading a
 * CPE 2.3 formatted string or a CPE 2.2 URI (Red Hat writes "cpe:/o:redhat:enterprise_linux:9
 * ::baseos"), making a component from a product name, and writing a 2.3 formatted string back.
 * (Matching CPEs is src/intel/cpe's business.)
 */

/** The eleven components after "cpe:2.3:", as formatted-string values ("*" for ANY). */
export type CpeParts = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];

const PARTS = new Set(['a', 'o', 'h']);

/** Splits on the colons that are not escaped by a backslash. */
function splitUnescaped(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1];
      i += 1;
    } else if (c === ':') {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

/** The components of a CPE 2.3 formatted string or a 2.2 URI; undefined for anything else. */
export function parseCpe(text: string): CpeParts | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('cpe:2.3:')) {
    const parts = splitUnescaped(trimmed).slice(2);
    return parts.length === 11 && PARTS.has(parts[0]!) && parts.every((p) => p !== '')
      ? (parts as CpeParts)
      : undefined;
  }
  if (trimmed.startsWith('cpe:/')) return fromUri(trimmed.slice('cpe:/'.length));
  return undefined;
}

/** A CPE 2.2 URI's part:vendor:product:version:update:edition:language; empty components are ANY. */
function fromUri(body: string): CpeParts | undefined {
  const raw = body.split(':');
  if (raw.length > 7 || !PARTS.has(raw[0] ?? '')) return undefined;
  const values: string[] = [];
  for (const component of raw) {
    const decoded = decode(component);
    if (decoded === undefined) return undefined;
    values.push(decoded === '' ? '*' : escapeComponent(decoded));
  }
  while (values.length < 11) values.push('*');
  return values as CpeParts;
}

function decode(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}

/**
 * A CPE 2.3 component from a free name: lower case, runs of white space as "_", and every
 * character other than letters, digits, "_", "-" and "." escaped with a backslash.
 */
export function componentOf(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '_')
    .replace(/[^a-z0-9_.-]/g, (c) => `\\${c}`);
}

function escapeComponent(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, (c) => `\\${c}`);
}

/** A version (or other value) as a CPE component: as given, special characters escaped. */
export function versionComponent(version: string): string {
  return escapeComponent(version);
}

export function formatCpe(parts: CpeParts): string {
  return `cpe:2.3:${parts.join(':')}`;
}

/** The product a CPE names, unescaped and in lower case, to compare with a package name. */
export function productName(parts: CpeParts): string {
  return parts[2].replace(/\\(.)/g, '$1').toLowerCase();
}
