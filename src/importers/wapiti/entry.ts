import { cweIdsIn } from '../../parsing/ids.js';
import { child, children, childText, type XmlElement } from '../../parsing/xml.js';
import { webTarget, webUrl } from '../common/network-target.js';
import { unique } from '../common/report-values.js';
import type { FindingRecord, Severity, SoftwareRecord } from '../types.js';

/**
 * Wapiti's levels as Rampart's (Wapiti 3.0.4 and later: 4 critical, 3 high, 2 medium, 1 low,
 * 0 info — DefectDojo's mapping too). Level names, which some tools write instead, are read
 * the same way. Anything else is Info.
 */
export const WAPITI_SEVERITY: Readonly<Record<string, Severity>> = {
  '4': 'Critical',
  '3': 'High',
  '2': 'Medium',
  '1': 'Low',
  '0': 'Info',
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
  informational: 'Info',
};

/**
 * Wapiti before 3.0.4 counted the other way: 1 high, 2 medium, 3 low (its HIGH_LEVEL was "1").
 * A report whose generatorVersion is older is read with this scale, else a blind SQL injection
 * of Wapiti 3.0.3 would be filed as Low.
 */
export const WAPITI_LEGACY_SEVERITY: Readonly<Record<string, Severity>> = {
  '1': 'High',
  '2': 'Medium',
  '3': 'Low',
};

/** True for "Wapiti 3.0.3", "2.3.0" and anything else older than 3.0.4. */
export function usesLegacyLevels(generatorVersion: string | undefined): boolean {
  const match = generatorVersion?.match(/(\d+)\.(\d+)(?:\.(\d+))?/);
  if (!match) return false;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  return major < 3 || (major === 3 && minor === 0 && patch < 4);
}

export function severityOf(level: string | undefined, legacy: boolean): Severity {
  const key = level?.trim().toLowerCase() ?? '';
  const scale = legacy ? WAPITI_LEGACY_SEVERITY : WAPITI_SEVERITY;
  return (Object.hasOwn(scale, key) ? scale[key] : undefined) ?? WAPITI_SEVERITY[key] ?? 'Info';
}

/** What Wapiti says about a category (`<vulnerability name="…">`) before listing its entries. */
export interface WapitiCategory {
  name: string;
  description?: string;
  solution?: string;
  references: string[];
  cweIds: string[];
}

/** Reads a category's `<references>`: links, and CWE ids from the titles that start with "CWE". */
export function addReferences(category: WapitiCategory, references: XmlElement): void {
  for (const reference of children(references, 'reference')) {
    const title = childText(reference, 'title');
    const url = childText(reference, 'url');
    if (url) category.references.push(url);
    if (title?.toUpperCase().startsWith('CWE')) category.cweIds.push(...cweIdsIn(title));
  }
}

/**
 * The rule of an entry. Wapiti files several checks under one category (HTTP Secure Headers:
 * "X-Frame-Options is not set", "Strict-Transport-Security is not set"…, all at "/" without a
 * parameter), so a category alone would merge distinct weaknesses into one finding; such short
 * fixed messages are part of the rule, as in DefectDojo's titles. An entry with a parameter, or
 * whose message names the attacked URL (injections, backup files), is told apart by its location,
 * and its message goes to the evidence.
 */
export function ruleOf(category: string, info: string | undefined, parameter: string | undefined): string {
  if (!info || parameter || info.length > 200 || /\n|https?:\/\//i.test(info)) return category;
  return `${category}: ${info}`;
}

interface Software {
  name: string;
  versions: string[];
}

/** Wapiti's fingerprint modules write the software they found as JSON: {"name", "versions", …}. */
export function softwareIn(info: string | undefined): Software | undefined {
  if (!info?.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(info) as { name?: unknown; versions?: unknown };
    if (typeof value.name !== 'string' || !value.name.trim()) return undefined;
    const versions = Array.isArray(value.versions) ? value.versions.filter((v) => typeof v === 'string') : [];
    return { name: value.name.trim(), versions };
  } catch {
    return undefined;
  }
}

export function softwareRecords(software: Software, url: URL): SoftwareRecord[] {
  const asset = webTarget(url, url.href).asset;
  const versions = software.versions.length > 0 ? software.versions : [undefined];
  return versions.map((version) => ({
    type: 'software',
    asset,
    name: software.name,
    version,
    category: 'Application',
  }));
}

/** The entry's URL: its path (a path in Wapiti 3, a full URL in some versions) on the target. */
export function entryUrl(path: string | undefined, target: string | undefined): URL | undefined {
  try {
    return webUrl(new URL(path ?? '', target).href);
  } catch {
    return undefined;
  }
}

function evidenceOf(entry: XmlElement, info: string | undefined): string {
  const text = (name: string) => childText(entry, name);
  const status = childText(child(child(entry, 'detail') ?? entry, 'response') ?? entry, 'status_code');
  return [
    info,
    text('http_request') && `Request:\n${text('http_request')}`,
    text('curl_command') && `cURL: ${text('curl_command')}`,
    text('referer') && `Referer: ${text('referer')}`,
    status && `Response status: ${status}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** One `<entry>` of a category as a finding at its URL and parameter. */
export function entryFinding(
  category: WapitiCategory,
  entry: XmlElement,
  url: URL,
  legacyLevels: boolean,
): FindingRecord {
  const software = softwareIn(childText(entry, 'info'));
  // A fingerprint's JSON is shown as "nginx 1.19.0".
  const info = software ? [software.name, ...software.versions].join(' ') : childText(entry, 'info');
  const parameter = childText(entry, 'parameter');
  const ruleId = ruleOf(category.name, info, parameter);
  return {
    type: 'finding',
    ...webTarget(url, url.href, parameter),
    vulnerability: {
      ruleId,
      title: ruleId,
      description: category.description,
      solution: category.solution,
      cweIds: unique(category.cweIds),
      references: unique(category.references),
    },
    severity: severityOf(childText(entry, 'level'), legacyLevels),
    evidence: evidenceOf(entry, info),
  };
}
