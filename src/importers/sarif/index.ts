import type { Importer } from '../types.js';
import { detectSarif } from './detect.js';
import { parseSarif } from './parse.js';

export { SARIF_LEVEL_SEVERITY, sarifSeverity } from './severity.js';

/**
 * SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), from any tool: CodeQL,
 * Semgrep, Flawfinder, ShellCheck, njsscan, dependency-check, Trivy, Grype…
 *
 * Records. One finding per result whose `kind` is "fail" (the default) and per location of it;
 * other kinds ("pass", "review"…) are skipped with a warning. Nothing is deduplicated here.
 * - Asset: a CodeRepository per run — the `versionControlProvenance` repository URI; else the
 *   scanned tree's root from `originalUriBaseIds`; else "<tool name> workspace".
 * - Location: File with the artifact URI as the tool wrote it and `region.startLine`; None when
 *   the result has no physical location (logical locations go to the evidence).
 * - Vulnerability: `ruleId` is the SARIF rule id (found by `ruleId`, `ruleIndex` or `rule`);
 *   title = the rule's short description, else the result's message; description = the full
 *   description; solution = the rule's help; references = `helpUri`; CWE ids from the rule's
 *   relationships, tags and properties and the result's `properties.cwe` and `taxa`; CVE ids
 *   found in the rule id.
 * - Evidence: the result's message, the logical location, the code snippet and the first code
 *   flow; `fixedIn`: the descriptions of the result's `fixes`.
 * - toolFindingId: the result's fingerprint, read as DefectDojo reads it.
 * - State: suppressions all accepted → FalsePositive with the justification; `baselineState`
 *   "absent" → Fixed.
 *
 * Severity (SARIF_LEVEL_SEVERITY, sarifSeverity in severity.ts):
 *
 * | SARIF                                  | Rampart  |
 * |----------------------------------------|----------|
 * | security-severity ≥ 9.0                | Critical |
 * | security-severity ≥ 7.0                | High     |
 * | security-severity ≥ 4.0                | Medium   |
 * | security-severity > 0                  | Low      |
 * | security-severity 0                    | Info     |
 * | (no security-severity) level `error`   | High     |
 * | level `warning`, or no level at all    | Medium   |
 * | level `note`                           | Info     |
 * | level `none`                           | Info     |
 *
 * `security-severity` is read from the result's properties, else the rule's; a word there
 * ("MEDIUM", as Semgrep writes it) is taken as that severity. The level is the result's, else
 * the rule's `defaultConfiguration.level`.
 *
 * Source: the importer's tool is "SARIF"; the run's own tool name (`tool.driver.name`, e.g.
 * "CodeQL") is what people would rather see as the findings' Source, but Source names the
 * importer's format for every importer, so it is "SARIF" here too; the driver's name shows in
 * the asset's name when the report gives no root ("<tool name> workspace").
 */
export const sarifImporter: Importer = {
  format: 'sarif',
  label: 'SARIF 2.1.0 (.sarif, .json)',
  tool: 'SARIF',
  detect: detectSarif,
  parse: parseSarif,
};
