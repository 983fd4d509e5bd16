import type { Readable } from 'node:stream';
import { jsonValues } from '../../parsing/json.js';
import { asObject } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import type { FindingRecord, ParseContext } from '../types.js';
import { jsonLines } from './lines.js';
import { isNucleiResult, matcherOf, nucleiFinding, templateIdOf } from './map.js';
import { NUCLEI_FALLBACK_SEVERITY, nucleiSeverity } from './severity.js';
import { targetOf } from './target.js';

/** A result as read, and where it is for error messages. */
interface Placed {
  value: unknown;
  /** "line 3" or "item 3". */
  where: string;
  line?: number;
}

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const NUCLEI_SHAPE = shapeCheck('a Nuclei JSON export', [
  ['', 'array', 'a list of results'],
  ['[]', 'object', 'a result object'],
]);

/**
 * Reads Nuclei output: JSON Lines (`-jsonl`, `-o`), one result a line; or the JSON array
 * `-json-export` writes. An empty file is Nuclei's output when nothing matched: no findings.
 */
export async function* parseNuclei(source: Readable, context: ParseContext): AsyncGenerator<FindingRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined) return;
  if (first !== '{' && first !== '[')
    throw new ReportError(`Not Nuclei output: it starts with "${first}", not with a JSON result.`);
  const limits = textLimits(context);
  const untargeted = new Set<string>();
  const unknownSeverities = new Set<string>();
  const results = first === '[' ? arrayItems(input, context) : lineItems(input);
  for await (const { value, where, line } of results) {
    if (!isNucleiResult(value))
      throw new ReportError(`Not a Nuclei result at ${where}: it has no "template-id" and "info".`, line);
    const target = targetOf(value, matcherOf(value));
    const templateId = templateIdOf(value)!;
    if (!target) {
      untargeted.add(templateId);
      continue;
    }
    const raw = asObject(value.info)?.severity;
    const severity = nucleiSeverity(typeof raw === 'string' ? raw : undefined);
    if (!severity) unknownSeverities.add(String(raw ?? '(none)'));
    yield nucleiFinding(value, target, severity ?? NUCLEI_FALLBACK_SEVERITY, limits);
  }
  if (untargeted.size > 0)
    context.warn(
      `Nuclei results that name no host, URL or address were skipped (templates: ${[...untargeted].join(', ')}).`,
    );
  if (unknownSeverities.size > 0)
    context.warn(
      `Nuclei severities ${[...unknownSeverities].map((s) => `"${s}"`).join(', ')} are not Nuclei's; they were read as ${NUCLEI_FALLBACK_SEVERITY}.`,
    );
}

async function* lineItems(input: Readable): AsyncGenerator<Placed> {
  for await (const { line, value } of jsonLines(input)) yield { value, where: `line ${line}`, line };
}

async function* arrayItems(input: Readable, context: ParseContext): AsyncGenerator<Placed> {
  const maxStringChars = Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1;
  const items = jsonValues(input, (path) => path.length === 1 && typeof path[0] === 'number', {
    onValue: NUCLEI_SHAPE,
    maxStringChars,
  });
  for await (const { path, value } of items) yield { value, where: `item ${(path[0] as number) + 1}` };
}
