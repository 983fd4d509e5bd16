import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import type { FindingRecord, Importer, ParseContext } from '../types.js';
import { detectGeneric } from './detect.js';
import { GenericNotes, genericFindings } from './map.js';
import { csvItems, jsonItems } from './read.js';

export { GENERIC_SEVERITY } from './severity.js';

/**
 * DefectDojo's "Generic Findings Import" format, so tools written for it feed Rampart unchanged.
 * Two layouts, told apart by the first character that is not white space: `{` is the JSON layout
 * (`{ "findings": [ { "title", "severity", "description", … } ] }`), anything else the CSV
 * layout (a header row with at least Title and Severity; DefectDojo's columns are Date, Title,
 * CweId, Url, Severity, Description, Mitigation, Impact, References, Active, Verified,
 * FalsePositive, Duplicate, CVE, Vulnerability Id, IsMitigated, MitigatedDate, CVSSV3,
 * fix_version…). Field and column names are matched loosely (case, spaces and underscores do not
 * matter), so both layouts share one mapping (map.ts); unknown fields are ignored.
 *
 * Records. One finding per finding (CSV: per row) and per endpoint it names; nothing is merged
 * (DefectDojo merges CSV rows of equal severity, title and description).
 * - Asset and location: each endpoint (JSON `endpoints`, URL text or `{protocol, host, port,
 *   path}`; CSV `Url`) → WebApplication at a Url location (http/https), else a Host at a Port
 *   location; no endpoint → the CodeRepository named by `service`, else
 *   "Generic Findings Import workspace". Without a Url/Port location: `component_name` +
 *   `component_version` → Package, else `file_path` + `line` → File.
 * - Vulnerability: ruleId = `vuln_id_from_tool`, else the title; CVE ids (upper case) and other
 *   ids (GHSA…, as aliases) from `cve`, `vulnerability_ids` and the CSV's CVE and Vulnerability Id;
 *   CWE ids from `cwe`/CweId and `cwes`/CweIds; `cvssv3` (prefix kept), `cvssv3_score`,
 *   `cvssv4`, `cvssv4_score`; description (+ impact); solution = mitigation; references.
 * - toolFindingId = `unique_id_from_tool`; fixedIn = `fix_version`; evidence = steps to
 *   reproduce and payload.
 * - State: false_p/FalsePositive → FalsePositive; risk_accepted → RiskAccepted; out_of_scope →
 *   RiskAccepted; is_mitigated/IsMitigated → Fixed (with the mitigation date); active/Active
 *   false → Fixed. The first that applies wins, in that order.
 *
 * Severity (GENERIC_SEVERITY, case-insensitive):
 *
 * | Generic                      | Rampart  |
 * |------------------------------|----------|
 * | Critical                     | Critical |
 * | High                         | High     |
 * | Medium                       | Medium   |
 * | Low                          | Low      |
 * | Info, Informational, Unknown | Info     |
 * | empty or missing             | Info, with a warning (DefectDojo's own samples leave it empty) |
 * | anything else                | the import fails, naming the finding or line |
 *
 * A value outside the scale fails the import rather than being guessed: the format has a fixed
 * scale, so "Severe" or "4" is a bug in the exporting script, and filing it as Info would hide a
 * possibly serious finding. The error names the finding, so the script can be fixed once.
 */
export const genericImporter: Importer = {
  format: 'generic',
  label: 'Generic Findings Import (DefectDojo JSON or CSV)',
  tool: 'Generic',
  detect: detectGeneric,
  parse: parseGeneric,
};

async function* parseGeneric(source: Readable, context: ParseContext): AsyncGenerator<FindingRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined)
    throw new ReportError(
      'The file is empty: a Generic Findings Import report is a JSON object with "findings", or a CSV file with a header row.',
    );
  if (first === '[')
    throw new ReportError(
      'Not a Generic Findings Import report: it is a JSON list; the JSON layout is an object with a "findings" list.',
    );
  const items = first === '{' ? jsonItems(input, context) : csvItems(input, context);
  const limits = textLimits(context);
  const notes = new GenericNotes();
  for await (const item of items) yield* genericFindings(item, limits, notes);
  notes.report(context);
}
