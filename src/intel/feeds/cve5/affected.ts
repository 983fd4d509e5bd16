/**
 * CVE 5 `affected` entries as NVD-style configurations, one configuration (one OR node) per
 * entry that can be converted. What is converted:
 *
 * Product (the CPE a match names, part "a" unless a given CPE says otherwise):
 * - `cpes` (CPE 2.3 strings, or 2.2 URIs, converted): each one, its version replaced when the
 *   entry's versions give one;
 * - else `vendor` + `product`: cpe:2.3:a:<vendor>:<product>, lower case, spaces as "_" (these
 *   names are the CNA's, e.g. apache_software_foundation:apache_http_server, not always NVD's);
 * - else `packageName`: cpe:2.3:a:*:<package> (any vendor).
 * Values "n/a", "unknown", "unspecified"… count as absent.
 *
 * Versions (`versions[]`, status "affected" only; "unaffected" and "unknown" entries say what is
 * not affected and add nothing):
 * - version V + lessThan L → versionStartIncluding V, versionEndExcluding L;
 * - version V + lessThanOrEqual L → versionStartIncluding V, versionEndIncluding L;
 *   V "0" (or "*") means "from the first version": no start; L "*" means no end; V "8.1.*"
 *   (a branch) starts at "8.1";
 * - version V alone → the CPE with version V (an exact match);
 * - `changes[]` (per-version status changes) are not read.
 * Skipped (the version, and the entry when nothing else is left): versions that are not one
 * version (free text such as "FortiOS 6.0.0 to 6.0.4, …", "n/a"), wildcard lessThan ("2.440.*"),
 * and versionType "git" (commit ids) or "rpm" (distribution builds, not product versions).
 *
 * defaultStatus:
 * - "affected" with no versions[] at all → every version of the product (the CPE as named);
 * - "affected" with only unaffected versions → affected below the one open-ended unaffected
 *   range ([X, *) → versionEndExcluding X; [0, Y) → versionStartIncluding Y). Several unaffected
 *   ranges (e.g. Jenkins' fixed LTS lines) leave gaps only a version ordering can tell: skipped;
 * - "affected" next to explicit affected versions → those versions only (a CNA that lists them
 *   rarely means "and every other version too");
 * - "unaffected", "unknown" or none → the explicit affected versions only.
 *
 * Red Hat names in `cpes` the product stream (RHEL 9, OpenShift 4.15) and in `packageName` the
 * package inside it, whose builds the versions are: such an entry (cpes whose product is not the
 * package) is converted only when it lists no versions and is affected by default (the stream as
 * named has the flaw); otherwise its package builds cannot be compared with the stream's CPE and
 * it is skipped. `platforms` and `modules` are not read.
 */
import { asObject, type JsonObject } from '../../../parsing/json-fields.js';
import type { Configuration, CpeMatch } from '../../types.js';
import { items } from '../json-records.js';
import { shortText } from '../text.js';
import {
  type CpeParts,
  componentOf,
  formatCpe,
  parseCpe,
  productName,
  versionComponent,
} from './cpe-name.js';

export interface AffectedResult {
  configurations: Configuration[];
  /** Entries that say something is affected but could not be converted, and why. */
  skipped: { entry: string; reason: string }[];
}

/** A version constraint on a product: one version, a range, or every version. */
type Constraint =
  | { kind: 'exact'; version: string }
  | { kind: 'range'; start?: string; end?: string; endIncluded: boolean }
  | { kind: 'all' };

type Outcome = { constraints: Constraint[] } | { skip: string } | { unaffected: true };

const PLACEHOLDERS = new Set(['n/a', 'na', 'unknown', 'unspecified', 'none', 'all', 'various', '-', 'tbd']);
const NOT_PRODUCT_VERSIONS = new Set(['git', 'rpm']);

export function configurationsFromAffected(entries: unknown[]): AffectedResult {
  const result: AffectedResult = { configurations: [], skipped: [] };
  entries.forEach((raw, i) => {
    const entry = asObject(raw);
    if (!entry) return;
    const converted = convertEntry(entry);
    if ('skip' in converted)
      result.skipped.push({ entry: `#${i + 1} (${labelOf(entry)})`, reason: converted.skip });
    else if ('configuration' in converted) result.configurations.push(converted.configuration);
  });
  return result;
}

function convertEntry(
  entry: JsonObject,
): { configuration: Configuration } | { skip: string } | { unaffected: true } {
  const products = productsOf(entry);
  if ('skip' in products) return products;
  const outcome = constraintsOf(entry, products.platformCpes);
  if (!('constraints' in outcome)) return outcome;
  const cpeMatch = products.cpes.flatMap((parts) => outcome.constraints.map((c) => matchOf(parts, c)));
  return {
    configuration: { operator: 'OR', negate: false, nodes: [{ operator: 'OR', negate: false, cpeMatch }] },
  };
}

function labelOf(entry: JsonObject): string {
  const names = [entry.vendor, entry.product].map(shortText).filter(Boolean).join(' / ');
  const pkg = shortText(entry.packageName);
  return [names, pkg && `package ${pkg}`].filter(Boolean).join(', ') || 'unnamed';
}

function named(value: unknown): string | undefined {
  const text = shortText(value);
  return text && !PLACEHOLDERS.has(text.toLowerCase()) ? text : undefined;
}

/** The CPEs an entry is about; `platformCpes` when they name a stream the package ships in. */
function productsOf(entry: JsonObject): { cpes: CpeParts[]; platformCpes: boolean } | { skip: string } {
  const listed = items(entry.cpes)
    .map((c) => (typeof c === 'string' ? parseCpe(c) : undefined))
    .filter((c): c is CpeParts => c !== undefined);
  const pkg = named(entry.packageName);
  if (listed.length > 0) {
    const own = pkg ? normalName(pkg) : undefined;
    return {
      cpes: listed,
      platformCpes: own !== undefined && listed.every((c) => normalName(productName(c)) !== own),
    };
  }
  const vendor = named(entry.vendor);
  const product = named(entry.product);
  if (vendor && product)
    return { cpes: [baseCpe(componentOf(vendor), componentOf(product))], platformCpes: false };
  if (pkg) return { cpes: [baseCpe('*', componentOf(pkg))], platformCpes: false };
  return { skip: 'it names no product (no cpes, vendor and product, or packageName)' };
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function baseCpe(vendor: string, product: string): CpeParts {
  return ['a', vendor, product, '*', '*', '*', '*', '*', '*', '*', '*'];
}

function constraintsOf(entry: JsonObject, platformCpes: boolean): Outcome {
  const versions = items(entry.versions)
    .map(asObject)
    .filter((v): v is JsonObject => v !== undefined);
  const defaultAffected = shortText(entry.defaultStatus)?.toLowerCase() === 'affected';
  if (versions.length === 0)
    return defaultAffected ? { constraints: [{ kind: 'all' }] } : { unaffected: true };
  if (platformCpes)
    return {
      skip: 'its cpes name the product stream the package ships in, and its versions are the package builds, which cannot be compared with that CPE',
    };
  const affected = versions.filter((v) => shortText(v.status)?.toLowerCase() === 'affected');
  if (affected.length === 0) return defaultAffected ? complementOf(versions) : { unaffected: true };
  const constraints: Constraint[] = [];
  const reasons: string[] = [];
  for (const version of affected) {
    const read = constraintOf(version);
    if (typeof read === 'string') reasons.push(read);
    else constraints.push(read);
  }
  return constraints.length > 0 ? { constraints } : { skip: [...new Set(reasons)].join('; ') };
}

/** One affected version entry as a constraint, or why it cannot be one. */
function constraintOf(version: JsonObject): Constraint | string {
  const type = shortText(version.versionType)?.toLowerCase();
  if (type && NOT_PRODUCT_VERSIONS.has(type)) return `versionType "${type}" is not a product version`;
  const start = versionText(version.version);
  if (start === undefined) return `"${shortText(version.version) ?? ''}" is not a version`;
  const lessThan = shortText(version.lessThan);
  const orEqual = shortText(version.lessThanOrEqual);
  const bound = lessThan ?? orEqual;
  if (bound === undefined)
    return start === '0' || start === '*'
      ? `"${start}" alone is not a version`
      : { kind: 'exact', version: start };
  const end = bound === '*' ? undefined : versionText(bound);
  if (bound !== '*' && (end === undefined || end.includes('*'))) return `"${bound}" is not a version bound`;
  const range: Constraint = { kind: 'range', endIncluded: lessThan === undefined };
  const from = branchStart(start);
  if (from !== undefined) range.start = from;
  if (end !== undefined) range.end = end;
  return range;
}

/** A single version: no spaces, no placeholder, at most 100 characters. */
function versionText(value: unknown): string | undefined {
  const text = shortText(value);
  if (!text || text.length > 100 || /\s/.test(text) || PLACEHOLDERS.has(text.toLowerCase())) return undefined;
  return text;
}

/** "0" and "*" are "from the first version"; a branch "8.1.*" starts at "8.1". */
function branchStart(version: string): string | undefined {
  if (version === '0' || version === '*') return undefined;
  return version.replace(/(\.\*)+$/, '');
}

/** Affected by default, with only unaffected ranges: expressible when one range is open-ended. */
function complementOf(versions: JsonObject[]): Outcome {
  if (versions.length !== 1)
    return {
      skip: `it is affected by default except in ${versions.length} unaffected ranges; the gaps between them need a version ordering`,
    };
  const [only] = versions as [JsonObject];
  const from = versionText(only.version);
  const lessThan = shortText(only.lessThan ?? only.lessThanOrEqual);
  const type = shortText(only.versionType)?.toLowerCase();
  if (type && NOT_PRODUCT_VERSIONS.has(type))
    return { skip: `versionType "${type}" is not a product version` };
  if (from && from !== '0' && lessThan === '*')
    return { constraints: [{ kind: 'range', end: from, endIncluded: false }] };
  const to = versionText(lessThan);
  if ((from === '0' || from === '*') && to && only.lessThan !== undefined && !to.includes('*'))
    return { constraints: [{ kind: 'range', start: to, endIncluded: false }] };
  return { skip: 'its one unaffected range is not open-ended, so what is affected cannot be told' };
}

function matchOf(parts: CpeParts, constraint: Constraint): CpeMatch {
  if (constraint.kind === 'all') return { criteria: formatCpe(parts), vulnerable: true };
  const criteria = [...parts] as CpeParts;
  if (constraint.kind === 'exact') {
    criteria[3] = versionComponent(constraint.version);
    return { criteria: formatCpe(criteria), vulnerable: true };
  }
  criteria[3] = '*';
  const match: CpeMatch = { criteria: formatCpe(criteria), vulnerable: true };
  if (constraint.start !== undefined) match.versionStartIncluding = constraint.start;
  if (constraint.end !== undefined) {
    if (constraint.endIncluded) match.versionEndIncluding = constraint.end;
    else match.versionEndExcluding = constraint.end;
  }
  return match;
}
