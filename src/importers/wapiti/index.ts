/**
 * Wapiti XML reports (`wapiti -f xml`, Wapiti 3): `<report type="security">` with
 * `<report_infos>` (generator, version, target…), then `<vulnerabilities>`, `<anomalies>` and
 * `<additionals>`, each a list of categories (`<vulnerability name="SQL Injection">` with
 * description, solution, references) whose `<entries>` are the results.
 *
 * - One finding per entry of `<vulnerabilities>` (as DefectDojo) and of `<anomalies>` (HTTP 500
 *   errors and timeouts under attack, which Wapiti rates itself; DefectDojo leaves them out).
 *   `<additionals>` are inventory: a fingerprint (JSON with a software name and versions) is a
 *   software record, anything else a finding at its own level. DefectDojo merges entries with the
 *   same category, message and level, whatever their URL; here each entry is its own finding and
 *   the import's deduplication decides (same rule, URL and parameter).
 * - Asset: the entry URL's site as a WebApplication (scheme://host[:port]); location: the URL
 *   (target + entry path) and the attacked parameter.
 * - Rule: the category name, with the message for fixed-message checks (see ruleOf); CWE ids from
 *   the category's references titled "CWE-…"; evidence: the message, the HTTP request and cURL.
 * - Severity: Wapiti's level, see WAPITI_SEVERITY (and WAPITI_LEGACY_SEVERITY for reports of
 *   Wapiti before 3.0.4, told by generatorVersion).
 *
 * Wapiti 2 reports (`<vulnerabilityTypeList>`) are refused with a message. Memory: one entry at a
 * time (a `--detailed-report` entry holds its HTTP response, cut to the import's limits).
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { childText, type XmlAncestor, type XmlElement, xmlElements } from '../../parsing/xml.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import {
  addReferences,
  entryFinding,
  entryUrl,
  softwareIn,
  softwareRecords,
  usesLegacyLevels,
  type WapitiCategory,
} from './entry.js';

export { WAPITI_LEGACY_SEVERITY, WAPITI_SEVERITY } from './entry.js';

/** The sections of a report and the element name of their categories. */
const SECTIONS: Readonly<Record<string, string>> = {
  vulnerabilities: 'vulnerability',
  anomalies: 'anomaly',
  additionals: 'additional',
};
const CATEGORY_PARTS = new Set(['description', 'solution', 'references']);

/** True when `ancestors` are report > section > category (> more), the category matching its section. */
function inCategory(ancestors: readonly XmlAncestor[]): boolean {
  const section = ancestors[1]?.name ?? '';
  return Object.hasOwn(SECTIONS, section) && ancestors[2]?.name === SECTIONS[section];
}

class WapitiReader {
  private readonly infos = new Map<string, string>();
  private category: WapitiCategory | undefined;
  private categoryKey = '';
  private recognised = false;
  private skipped = 0;
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  pick(name: string, ancestors: readonly XmlAncestor[]): boolean {
    const depth = ancestors.length;
    if (depth === 0 && name !== 'report')
      throw new ReportError(`Not a Wapiti XML report: the root element is <${name}>, not <report>.`);
    if (depth === 1 && name === 'vulnerabilityTypeList')
      throw new ReportError(
        'This is a Wapiti 2 XML report (<vulnerabilityTypeList>); Rampart reads the reports of Wapiti 3.',
      );
    if (depth === 1 && Object.hasOwn(SECTIONS, name)) this.recognised = true;
    if (name === 'info') return depth === 2 && ancestors[1]!.name === 'report_infos';
    if (depth === 3 && CATEGORY_PARTS.has(name)) return inCategory(ancestors);
    return name === 'entry' && depth === 4 && ancestors[3]!.name === 'entries' && inCategory(ancestors);
  }

  take(element: XmlElement, ancestors: readonly XmlAncestor[]): ImportRecord[] {
    if (element.name === 'info') {
      const key = element.attributes.name;
      if (key) this.infos.set(key, element.text.trim());
      return [];
    }
    const category = this.categoryOf(ancestors);
    if (element.name === 'entry') return this.entry(category, element, ancestors[1]!.name);
    if (element.name === 'references') addReferences(category, element);
    else category[element.name as 'description' | 'solution'] = element.text.trim() || undefined;
    return [];
  }

  finish(): void {
    if (!this.recognised)
      throw new ReportError(
        'Not a Wapiti XML report: <report> has no <vulnerabilities>, <anomalies> or <additionals>.',
      );
    if (this.skipped > 0)
      this.context.warn(`${this.skipped} Wapiti entries without a usable URL were skipped.`);
  }

  /** The category being read; its description and references come before its entries. */
  private categoryOf(ancestors: readonly XmlAncestor[]): WapitiCategory {
    const name = ancestors[2]!.attributes.name?.trim() || ancestors[2]!.name;
    const key = `${ancestors[1]!.name}\u0000${name}`;
    if (!this.category || key !== this.categoryKey) {
      this.category = { name, references: [], cweIds: [] };
      this.categoryKey = key;
    }
    return this.category;
  }

  private target(): string {
    const target = this.infos.get('target');
    if (!target)
      throw new ReportError('Not a Wapiti XML report: <report_infos> names no target (info name="target").');
    return target;
  }

  private entry(category: WapitiCategory, entry: XmlElement, section: string): ImportRecord[] {
    const url = entryUrl(childText(entry, 'path'), this.target());
    if (!url) {
      this.skipped += 1;
      return [];
    }
    const software = softwareIn(childText(entry, 'info'));
    const records: ImportRecord[] = software ? softwareRecords(software, url) : [];
    if (!software || section !== 'additionals') {
      const legacy = usesLegacyLevels(this.infos.get('generatorVersion'));
      records.push(entryFinding(category, entry, url, legacy));
    }
    return records.map((record) => tidyRecord(record, this.limits));
  }
}

function detect(head: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (!text.startsWith('<') || !/<report[\s>]/.test(text)) return 0;
  if (/<info\s+name="generatorName"\s*>\s*wapiti\s*</i.test(text)) return 1;
  const layout = /<report_infos[\s>]/.test(text) && /<vulnerabilities[\s>]/.test(text);
  return layout && /<vulnerability\s+name="/.test(text) ? 0.85 : 0;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined) throw new ReportError('The report is empty: expected a Wapiti XML report.');
  if (first !== '<') throw new ReportError(`Not a Wapiti XML report: it starts with "${first}", not XML.`);
  const reader = new WapitiReader(context);
  const maxTextChars = Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1;
  try {
    const elements = xmlElements(input, (name, ancestors) => reader.pick(name, ancestors), { maxTextChars });
    for await (const { element, ancestors } of elements) yield* reader.take(element, ancestors);
    reader.finish();
  } finally {
    input.destroy();
  }
}

export const wapitiImporter: Importer = {
  format: 'wapiti',
  label: 'Wapiti (XML report)',
  tool: 'Wapiti',
  detect,
  parse,
};
