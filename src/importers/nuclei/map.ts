import { cweIdsIn } from '../../parsing/ids.js';
import { asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { cut } from '../../parsing/text-cut.js';
import { cvss3VectorOf, cvss4VectorOf, cvssScoreOf } from '../common/cvss-score.js';
import type { TextLimits } from '../common/limits.js';
import { httpUrlsIn } from '../common/report-values.js';
import { tidyRecord } from '../common/tidy-record.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { FindingRecord, Severity, VulnerabilityRef } from '../types.js';
import type { Target } from './target.js';

/** How much of the recorded request and response the evidence keeps. */
const REQUEST_EXCERPT_CHARS = 4 * 1024;
const RESPONSE_EXCERPT_CHARS = 8 * 1024;
const COMMAND_EXCERPT_CHARS = 2 * 1024;

/** The template id of a result, under the name of either Nuclei generation. */
export function templateIdOf(result: JsonObject): string | undefined {
  return asText(result['template-id']) ?? asText(result.templateID);
}

/** The matcher that fired, under the name of either Nuclei generation. */
export function matcherOf(result: JsonObject): string | undefined {
  return asText(result['matcher-name']) ?? asText(result.matcher_name);
}

/** One Nuclei result as a finding at `target`. */
export function nucleiFinding(
  result: JsonObject,
  target: Target,
  severity: Severity,
  limits: TextLimits,
): FindingRecord {
  return tidyRecord(
    {
      type: 'finding',
      asset: target.asset,
      vulnerability: vulnerabilityOf(result),
      location: target.location,
      severity,
      evidence: evidenceOf(result),
    },
    limits,
  );
}

function vulnerabilityOf(result: JsonObject): VulnerabilityRef {
  const ruleId = templateIdOf(result)!;
  const info = asObject(result.info) ?? {};
  const classification = asObject(info.classification) ?? {};
  const metrics = asText(classification['cvss-metrics']);
  const score = cvssScoreOf(classification['cvss-score']);
  const cvss3Vector = cvss3VectorOf(metrics);
  const cvss4Vector = cvss4VectorOf(metrics);
  const description = asText(info.description);
  const impact = asText(info.impact);
  return {
    ruleId,
    title: asText(info.name) ?? ruleId,
    ...vulnerabilityIds(ruleId, listOf(classification['cve-id'])),
    description: [description, impact && `Impact: ${impact}`].filter(Boolean).join('\n\n'),
    solution: asText(info.remediation),
    cweIds: listOf(classification['cwe-id']).flatMap(cweIdsIn),
    cvss3Vector,
    // Templates score in CVSS 3.1 unless their vector says otherwise.
    ...(score !== undefined && (cvss4Vector ? { cvss4Vector, cvss4Score: score } : { cvss3Score: score })),
    references: referencesOf(info.reference),
  };
}

/** A field Nuclei writes as one text, a list, or null. */
function listOf(value: unknown): string[] {
  return Array.isArray(value) ? texts(value) : [asText(value)].filter((t): t is string => t !== undefined);
}

/** References as a list, or (older templates) as one text of "- url" lines. */
function referencesOf(value: unknown): string[] {
  if (Array.isArray(value)) return texts(value);
  const text = asText(value);
  if (!text) return [];
  const urls = httpUrlsIn(text);
  return urls.length > 0 ? urls : [text];
}

/**
 * What Nuclei saw: where it matched, the matcher, what it extracted, and excerpts of the request,
 * the response and the command that reproduces it.
 */
function evidenceOf(result: JsonObject): string {
  const parts: string[] = [];
  const add = (label: string, value: string | undefined) => {
    if (value) parts.push(`${label}: ${value}`);
  };
  add('Matched at', asText(result['matched-at']) ?? asText(result.matched));
  add('Matcher', matcherOf(result));
  add('Extracted', listOf(result['extracted-results'] ?? result.extracted_results).join(', '));
  add('Matched line', listOf(result['matched-line']).join(', '));
  const meta = Object.entries(asObject(result.meta) ?? {}).map(
    ([k, v]) => `${k}=${asText(v) ?? JSON.stringify(v)}`,
  );
  add('Meta', meta.join(', '));
  const block = (label: string, value: unknown, max: number) => {
    const text = typeof value === 'string' ? value.trim() : '';
    if (text) parts.push(`${label}:\n${cut(text, max)}`);
  };
  block('Request', result.request, REQUEST_EXCERPT_CHARS);
  block('Response', result.response, RESPONSE_EXCERPT_CHARS);
  block('Reproduce with', result['curl-command'], COMMAND_EXCERPT_CHARS);
  return parts.join('\n');
}

/** True when `value` has the two things every Nuclei result has: a template id and `info`. */
export function isNucleiResult(value: unknown): value is JsonObject {
  const result = asObject(value);
  return result !== undefined && templateIdOf(result) !== undefined && asObject(result.info) !== undefined;
}
