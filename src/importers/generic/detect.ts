import { looseName } from './fields.js';

/** Columns of DefectDojo's generic CSV besides Title and Severity. */
const KNOWN_COLUMNS = [
  'date',
  'description',
  'cweid',
  'url',
  'mitigation',
  'impact',
  'references',
  'active',
  'verified',
  'falsepositive',
  'duplicate',
  'cve',
  'vulnerabilityid',
];

/**
 * How sure we are that a file is in the generic format, from its first 64 KiB: a JSON object
 * with a "findings" list of titled findings, or a CSV whose first line has Title and Severity
 * columns.
 */
export function detectGeneric(head: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) return detectJson(text);
  if (text.startsWith('[') || text.startsWith('<')) return 0;
  return detectCsv(text);
}

function detectJson(text: string): number {
  if (!/"findings"\s*:\s*\[/.test(text)) return 0;
  // A SARIF log may hold the word in a property bag; it is SARIF's, not ours.
  if (/"runs"\s*:\s*\[/.test(text) && /"driver"\s*:/.test(text)) return 0.1;
  // npm 6 audit reports nest "findings" lists inside their "advisories".
  if (/^\{\s*"(actions|advisories)"\s*:/.test(text) || /"advisories"\s*:\s*\{/.test(text)) return 0.1;
  const title = /"title"\s*:/.test(text);
  const severity = /"severity"\s*:/.test(text);
  if (title && severity) return 0.85;
  return title || severity ? 0.6 : 0.4;
}

function detectCsv(text: string): number {
  const header = text.split(/\r?\n/, 1)[0] ?? '';
  const names = new Set(header.split(/[,;\t]/).map((name) => looseName(name)));
  if (!names.has('title') || !names.has('severity')) return 0;
  // Qualys exports have Title and Severity columns too, next to their QID.
  if (names.has('qid')) return 0.3;
  return KNOWN_COLUMNS.filter((name) => names.has(name)).length >= 2 ? 0.9 : 0.8;
}
