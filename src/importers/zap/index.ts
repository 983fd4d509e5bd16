/**
 * OWASP ZAP reports: the XML report ("traditional-xml", also the "xml-plus" variant with the
 * requests and responses) and the JSON report ("traditional-json" and "-plus"). One importer
 * reads both: the first significant character of the file tells XML (`<`) from JSON (`{`), so
 * clients pick "zap" whatever ZAP wrote.
 *
 * - One finding per alert instance (URI + parameter + evidence). DefectDojo makes one finding per
 *   alert with the instances as endpoints; Rampart keeps each instance, and the import service
 *   merges exact duplicates.
 * - Asset: the alert's site as a WebApplication, `scheme://host[:port]` (default ports left out).
 * - Location: the instance's URI and parameter.
 * - Rule id: the plugin id (or the alert reference "10020-1" when the plugin raises several
 *   alerts); CWE from `cweid`; references are the URLs in `reference`. Confidence 0 ("False
 *   Positive", set by a ZAP user) becomes the FalsePositive state.
 * - Evidence: method, parameter, attack, evidence, other info, and in the "plus" variants the
 *   request and response, cut to the evidence limit.
 *
 * Severity — see ZAP_SEVERITY (from `riskcode`, else the first word of `riskdesc`):
 *
 * | ZAP riskcode          | Severity |
 * |-----------------------|----------|
 * | 3 (High)              | High     |
 * | 2 (Medium)            | Medium   |
 * | 1 (Low)               | Low      |
 * | 0 (Informational)     | Info     |
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { alertFindings } from './alert.js';
import { jsonAlerts } from './json.js';
import { xmlAlerts } from './xml.js';

export { ZAP_SEVERITY } from './alert.js';

function detectJson(head: string): number {
  if (/"@programName"\s*:\s*"(OWASP )?ZAP/.test(head)) return 1;
  const sites = /"site"\s*:\s*[[{]/.test(head);
  const zapHeader = /"@version"\s*:/.test(head) && /"@generated"\s*:/.test(head);
  const alerts = /"pluginid"\s*:/.test(head) && /"riskcode"\s*:/.test(head);
  if (sites && zapHeader) return alerts ? 0.95 : 0.85;
  return sites && alerts ? 0.8 : 0;
}

function detect(head: string): number {
  if (/<OWASPZAPReport[\s>]/.test(head)) return 1;
  return head.trimStart().startsWith('{') ? detectJson(head) : 0;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined) throw new ReportError('The report is empty: expected a ZAP XML or JSON report.');
  if (first !== '<' && first !== '{' && first !== '[')
    throw new ReportError(`Not a ZAP report: it starts with "${first}", neither XML nor JSON.`);
  const limits = textLimits(context);
  const alerts = first === '<' ? xmlAlerts(input) : jsonAlerts(input);
  try {
    for await (const { site, alert } of alerts) yield* alertFindings(site, alert, context, limits);
  } finally {
    // A failed or abandoned read must still close the file.
    input.destroy();
  }
}

export const zapImporter: Importer = {
  format: 'zap',
  label: 'OWASP ZAP (XML or JSON report)',
  tool: 'OWASP ZAP',
  detect,
  parse,
};
