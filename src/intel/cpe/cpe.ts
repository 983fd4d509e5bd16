/**
 * CPE 2.3 names (NISTIR 7695 naming, NISTIR 7696 matching), read from the formatted string binding
 * (`cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*`) or the older URI binding
 * (`cpe:/a:openbsd:openssh:8.9p1`, as nmap emits it) into one structure.
 *
 * Attribute values are kept in one canonical, lowercase form:
 * - `*` is ANY and `-` is NA, nothing else is;
 * - a literal value is its unescaped text, except that a literal `\`, `*` or `?` stays escaped
 *   (`\\`, `\*`, `\?`) and a literal lone hyphen is `\-`, so that unescaped `*` and `?` are always
 *   wildcards and ANY/NA can never be confused with a value.
 * Lowercasing at parse time is what the matching spec does anyway (comparisons are
 * case-insensitive) and lets the matcher compare values with `===`.
 */

export const ANY = '*';
export const NA = '-';

export interface Cpe {
  part: string;
  vendor: string;
  product: string;
  version: string;
  update: string;
  edition: string;
  language: string;
  swEdition: string;
  targetSw: string;
  targetHw: string;
  other: string;
}

export type CpeAttribute = keyof Cpe;

/** The attributes in binding order. */
export const CPE_ATTRIBUTES: readonly CpeAttribute[] = [
  'part',
  'vendor',
  'product',
  'version',
  'update',
  'edition',
  'language',
  'swEdition',
  'targetSw',
  'targetHw',
  'other',
];

export type CpeParseResult = { ok: true; cpe: Cpe } | { ok: false; error: string };

const PARTS = new Set(['a', 'o', 'h', ANY]);

function fail(error: string): CpeParseResult {
  return { ok: false, error };
}

/** An all-ANY name with the given attributes set (values must already be canonical). */
export function makeCpe(values: Partial<Cpe>): Cpe {
  return {
    part: ANY,
    vendor: ANY,
    product: ANY,
    version: ANY,
    update: ANY,
    edition: ANY,
    language: ANY,
    swEdition: ANY,
    targetSw: ANY,
    targetHw: ANY,
    other: ANY,
    ...values,
  };
}

/** Parses either binding, chosen by its prefix. Never throws. */
export function parseCpe(text: unknown): CpeParseResult {
  if (typeof text !== 'string') return fail('CPE name must be a string');
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (lower.startsWith('cpe:2.3:')) return parseCpe23(trimmed);
  if (lower.startsWith('cpe:/')) return parseCpeUri(trimmed);
  return fail(`not a CPE name (expected "cpe:2.3:" or "cpe:/"): ${JSON.stringify(text.slice(0, 80))}`);
}

/** Parses the CPE 2.3 formatted string binding: exactly 11 attributes after `cpe:2.3:`. */
export function parseCpe23(text: string): CpeParseResult {
  if (!/^cpe:2\.3:/i.test(text)) return fail('formatted string binding must start with "cpe:2.3:"');
  const fields = splitUnescaped(text.slice(8));
  if (fields === null) return fail('CPE 2.3 name ends with a lone backslash');
  if (fields.length !== 11) return fail(`CPE 2.3 name must have 11 attributes, found ${fields.length}`);
  const values: string[] = [];
  for (const [i, field] of fields.entries()) {
    const value = unbindFormattedValue(field);
    if (!value.ok) return fail(`${CPE_ATTRIBUTES[i]}: ${value.error}`);
    values.push(value.value);
  }
  return withValues(values);
}

/** Splits on `:` not preceded by an escaping backslash; null when a backslash ends the text. */
function splitUnescaped(text: string): string[] | null {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\') {
      if (i + 1 >= text.length) return null;
      current += char + text[i + 1];
      i++;
    } else if (char === ':') {
      fields.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  fields.push(current);
  return fields;
}

type ValueResult = { ok: true; value: string } | { ok: false; error: string };

function unbindFormattedValue(field: string): ValueResult {
  if (field === '') return { ok: false, error: 'empty value (use * for ANY or - for NA)' };
  if (field === ANY) return { ok: true, value: ANY };
  if (field === NA) return { ok: true, value: NA };
  // Most values need no unescaping: keep them one flat string instead of a chain of concatenations.
  if (/^[A-Za-z0-9_.-]+$/.test(field)) return { ok: true, value: field.toLowerCase() };
  let value = '';
  for (let i = 0; i < field.length; i++) {
    const char = field[i]!;
    if (/\s/.test(char)) return { ok: false, error: 'whitespace is not allowed' };
    if (char === '\\') {
      value += escapeLiteral(field[i + 1]!.toLowerCase());
      i++;
    } else if (char === '*' || char === '?') {
      const wildcard = checkWildcard(field, i);
      if (wildcard) return { ok: false, error: wildcard };
      value += char;
    } else {
      value += char.toLowerCase();
    }
  }
  return { ok: true, value: value === NA ? '\\-' : value };
}

/** Unquoted `*` may only open or close a value; `?` runs likewise (CPE 2.3 naming §5.3.2). */
function checkWildcard(field: string, index: number): string | null {
  const char = field[index];
  if (char === '*') {
    if (index !== 0 && index !== field.length - 1) return 'unescaped * inside a value';
    if (field.length > 1 && field[index + (index === 0 ? 1 : -1)] === '*') return 'doubled *';
    return null;
  }
  const before = field.slice(0, index);
  const after = field.slice(index + 1);
  const leading = /^\*?\?*$/.test(before);
  const trailing = /^\?*\*?$/.test(after);
  return leading || trailing ? null : 'unescaped ? inside a value';
}

/** Keeps the three characters with a meaning of their own escaped in the canonical form. */
function escapeLiteral(char: string): string {
  return char === '\\' || char === '*' || char === '?' ? `\\${char}` : char;
}

/**
 * Parses the CPE 2.2-style URI binding: `cpe:/part:vendor:product:version:update:edition:language`,
 * trailing attributes optional, `%XX` percent-encoding (`%01` = `?` and `%02` = `*` wildcards), and
 * the packed edition `~edition~sw_edition~target_sw~target_hw~other`.
 */
export function parseCpeUri(text: string): CpeParseResult {
  if (!/^cpe:\//i.test(text)) return fail('URI binding must start with "cpe:/"');
  const fields = text.slice(5).split(':');
  if (fields.length > 7) return fail(`CPE URI has ${fields.length} components, at most 7 are allowed`);
  const values: Partial<Cpe> = {};
  for (const [i, field] of fields.entries()) {
    const name = URI_ATTRIBUTES[i]!;
    if (name === 'edition' && field.startsWith('~')) {
      const packed = unpackEdition(field);
      if (!packed.ok) return fail(`edition: ${packed.error}`);
      Object.assign(values, packed.values);
      continue;
    }
    const value = decodeUriValue(field);
    if (!value.ok) return fail(`${name}: ${value.error}`);
    values[name] = value.value;
  }
  return checked(makeCpe(values));
}

const URI_ATTRIBUTES: readonly CpeAttribute[] = CPE_ATTRIBUTES.slice(0, 7);
const PACKED_ATTRIBUTES: readonly CpeAttribute[] = ['edition', 'swEdition', 'targetSw', 'targetHw', 'other'];

function unpackEdition(field: string): { ok: true; values: Partial<Cpe> } | { ok: false; error: string } {
  const parts = field.split('~');
  if (parts.length !== 6) {
    return { ok: false, error: 'packed edition must be ~edition~sw_edition~target_sw~target_hw~other' };
  }
  const values: Partial<Cpe> = {};
  for (const [i, part] of parts.slice(1).entries()) {
    const value = decodeUriValue(part);
    if (!value.ok) return value;
    values[PACKED_ATTRIBUTES[i]!] = value.value;
  }
  return { ok: true, values };
}

function decodeUriValue(field: string): ValueResult {
  if (field === '') return { ok: true, value: ANY };
  if (field === NA) return { ok: true, value: NA };
  let value = '';
  for (let i = 0; i < field.length; i++) {
    const char = field[i]!;
    if (/\s/.test(char)) return { ok: false, error: 'whitespace is not allowed' };
    if (char !== '%') {
      value += escapeLiteral(char.toLowerCase());
      continue;
    }
    const hex = field.slice(i + 1, i + 3);
    if (!/^[0-9a-f]{2}$/i.test(hex)) return { ok: false, error: `bad percent-encoding "%${hex}"` };
    const code = Number.parseInt(hex, 16);
    if (code === 1) value += '?';
    else if (code === 2) value += '*';
    else value += escapeLiteral(String.fromCharCode(code).toLowerCase());
    i += 2;
  }
  return { ok: true, value: value === NA ? '\\-' : value };
}

function withValues(values: string[]): CpeParseResult {
  const cpe = makeCpe({});
  values.forEach((value, i) => {
    cpe[CPE_ATTRIBUTES[i]!] = value;
  });
  return checked(cpe);
}

function checked(cpe: Cpe): CpeParseResult {
  if (!PARTS.has(cpe.part)) return fail(`part must be a, o, h or *, not "${cpe.part}"`);
  return { ok: true, cpe };
}

/** Binds a name to the CPE 2.3 formatted string. */
export function formatCpe(cpe: Cpe): string {
  return `cpe:2.3:${CPE_ATTRIBUTES.map((name) => bindFormattedValue(cpe[name])).join(':')}`;
}

function bindFormattedValue(value: string): string {
  if (value === ANY || value === NA) return value;
  if (value === '\\-' || /^[a-z0-9_.*?-]*$/.test(value)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (char === '\\') {
      out += `\\${value[i + 1] ?? '\\'}`;
      i++;
    } else if (char === '*' || char === '?' || /[a-z0-9_.-]/.test(char)) {
      out += char;
    } else {
      out += `\\${char}`;
    }
  }
  return out;
}

/** True when a canonical value holds an unescaped `*` or `?`. */
export function hasWildcard(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === '\\') i++;
    else if (char === '*' || char === '?') return value !== ANY;
  }
  return false;
}

/** The literal text of a canonical value with its escapes removed (`\*` → `*`). */
export function literalText(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/**
 * Canonical form of a free-text value (a product or vendor a scanner reported): lowercase, spaces
 * to `_` as in the CPE dictionary, wildcard characters escaped; empty means ANY.
 */
export function toCpeValue(text: string | undefined): string {
  const trimmed = (text ?? '').trim().toLowerCase();
  if (trimmed === '' || trimmed === ANY) return ANY;
  if (trimmed === NA) return NA;
  let value = '';
  for (const char of trimmed.replace(/\s+/g, '_')) value += escapeLiteral(char);
  return value;
}

/** The relation of a source (criteria) attribute to a target attribute, NISTIR 7696 Table 6-2. */
export type AttributeRelation = 'superset' | 'equal' | 'subset' | 'disjoint' | 'undefined';

export function compareAttribute(source: string, target: string): AttributeRelation {
  if (source === ANY) return target === ANY ? 'equal' : 'superset';
  if (target !== ANY && target !== NA && hasWildcard(target)) return 'undefined';
  if (source === NA) return target === NA ? 'equal' : target === ANY ? 'subset' : 'disjoint';
  if (target === ANY) return 'subset';
  if (target === NA) return 'disjoint';
  if (hasWildcard(source)) return wildcardPattern(source).test(target) ? 'superset' : 'disjoint';
  return source === target ? 'equal' : 'disjoint';
}

/**
 * Whether a criteria attribute accepts what is known of a target. As the spec: ANY accepts
 * anything, NA accepts NA, a literal accepts an equal literal (or one its wildcards match). Unlike
 * the spec's strict name match, a target attribute that is ANY (unknown: scanners rarely know the
 * edition or language) is accepted too; the version is the exception, handled by the matcher.
 */
export function attributeMatches(criteria: string, target: string): boolean {
  if (criteria === ANY || target === ANY) return true;
  if (criteria === NA || target === NA) return criteria === target;
  if (criteria === target) return true;
  return hasWildcard(criteria) && wildcardPattern(criteria).test(target);
}

const patterns = new Map<string, RegExp>();

/**
 * `*` = any run of characters, `?` = one character, matched against the target's canonical text
 * (where an escaped character is still `\` + character); cached because criteria repeat.
 */
function wildcardPattern(value: string): RegExp {
  let pattern = patterns.get(value);
  if (pattern) return pattern;
  let source = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (char === '\\') {
      source += `\\\\${escapeRegExp(value[i + 1] ?? '')}`;
      i++;
    } else if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += escapeRegExp(char);
  }
  pattern = new RegExp(`^${source}$`, 's');
  if (patterns.size > 10_000) patterns.clear();
  patterns.set(value, pattern);
  return pattern;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Whether every attribute of `criteria` accepts `target` (see attributeMatches). */
export function cpeMatches(criteria: Cpe, target: Cpe): boolean {
  for (const name of CPE_ATTRIBUTES) {
    if (!attributeMatches(criteria[name], target[name])) return false;
  }
  return true;
}
