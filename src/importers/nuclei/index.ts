import type { Importer } from '../types.js';
import { detectNuclei } from './detect.js';
import { parseNuclei } from './parse.js';

export { NUCLEI_SEVERITY } from './severity.js';

/**
 * Nuclei (ProjectDiscovery) results: JSON Lines (`nuclei -jsonl -o out.jsonl`; older versions'
 * `-json`) or the JSON array of `-json-export`. Both field generations are read: `template-id`,
 * `matched-at`, `matcher-name`, `extracted-results` and their older spellings `templateID`,
 * `matched`, `matcher_name`, `extracted_results`.
 *
 * Records. One finding per result line, as Nuclei reports it (DefectDojo merges results of one
 * template, type, matcher and host; Rampart leaves merging to the import service).
 * - Asset and location (see target.ts): an http(s) `matched-at` → WebApplication (its origin) at
 *   a Url location whose parameter is the matcher name, so each matcher of a template (each
 *   missing header, each technology) stays its own finding; "host:port" (network, ssl, dns,
 *   javascript templates) → Host with the resolved ip at a Port location. A result naming no
 *   target at all (e.g. a DNS template run against the root zone) is skipped with a warning.
 * - Vulnerability: ruleId = template id; title = `info.name`; description (+ impact);
 *   solution = `info.remediation`; references; CVE ids from `classification.cve-id` (and the
 *   template id, when it is a CVE id); CWE ids from `classification.cwe-id`; CVSS vector and
 *   score from `classification.cvss-metrics` and `cvss-score`.
 * - Evidence: where it matched, the matcher, extracted results, `meta`, and excerpts of the
 *   request (4 KiB), response (8 KiB) and curl command (2 KiB).
 *
 * Severity (NUCLEI_SEVERITY, `info.severity`, case-insensitive):
 *
 * | Nuclei             | Rampart  |
 * |--------------------|----------|
 * | critical           | Critical |
 * | high               | High     |
 * | medium             | Medium   |
 * | low                | Low      |
 * | info               | Info     |
 * | unknown            | Low      |
 * | missing, other     | Low (with a warning) |
 *
 * An empty file is a valid report with no findings. A line that is not JSON fails the import
 * with its line number; a JSON value that is not a Nuclei result fails it too.
 */
export const nucleiImporter: Importer = {
  format: 'nuclei',
  label: 'Nuclei (JSON Lines or JSON export)',
  tool: 'Nuclei',
  detect: detectNuclei,
  parse: parseNuclei,
};
