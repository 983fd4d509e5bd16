/**
 * Burp Suite XML issues export ("Report selected issues" → XML, or the Burp REST/Enterprise XML).
 *
 * - One finding per `<issue>`; issues are not merged (DefectDojo merges issues of one type into
 *   one finding with many endpoints; Rampart's import service merges only exact duplicates).
 * - Asset: the issue's `<host>` as a WebApplication (`scheme://host[:port]`, plus its `ip`).
 * - Location: the URL (`host` + `path`) and the input named in `location` ("[b_id cookie]").
 * - Rule id: Burp's issue `type` (for extension-raised issues, which all share type 134217728,
 *   "134217728:<issue name>"); CWE ids from `vulnerabilityClassifications`; references from the
 *   links in `references`; CVE ids named in the issue detail.
 * - Evidence: the issue detail, confidence and the base64-decoded request/response pairs, cut to
 *   the evidence limit.
 *
 * Severity — see BURP_SEVERITY:
 *
 * | Burp           | Severity                         |
 * |----------------|----------------------------------|
 * | High           | High                             |
 * | Medium         | Medium                           |
 * | Low            | Low                              |
 * | Information    | Info                             |
 * | False positive | Info, state FalsePositive        |
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { xmlElements } from '../../parsing/xml.js';
import { textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { withoutHarmlessDtd } from './doctype.js';
import { issueFinding } from './issue.js';

export { BURP_SEVERITY } from './issue.js';

function detect(head: string): number {
  if (/<issues\s[^>]*\bburpVersion="/.test(head)) return 1;
  if (/<!DOCTYPE issues\b/.test(head) && /<serialNumber>/.test(head)) return 0.9;
  return /<issues[\s>]/.test(head) && /<issue>\s*<serialNumber>/.test(head) ? 0.8 : 0;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined)
    throw new ReportError('The report is empty: expected a Burp Suite XML issues export.');
  if (first !== '<')
    throw new ReportError(`Not a Burp Suite XML report: it starts with "${first}", not "<".`);
  const limits = textLimits(context);
  const pick = (name: string, ancestors: readonly { name: string }[]) => {
    if (ancestors.length === 0 && name !== 'issues')
      throw new ReportError(`Not a Burp Suite XML report: the root element is <${name}>, not <issues>.`);
    return name === 'issue' && ancestors.length === 1;
  };
  try {
    for await (const { element } of xmlElements(withoutHarmlessDtd(input), pick)) {
      const finding = issueFinding(element, context, limits);
      if (finding) yield finding;
    }
  } finally {
    // A failed or abandoned read must still close the file.
    input.destroy();
  }
}

export const burpImporter: Importer = {
  format: 'burp',
  label: 'Burp Suite XML (issues export)',
  tool: 'Burp Suite',
  detect,
  parse,
};
