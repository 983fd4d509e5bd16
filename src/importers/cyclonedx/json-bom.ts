import type { Readable } from 'node:stream';
import { jsonValues } from '../../parsing/json.js';
import { asArray, asNumber, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import type { ImportRecord, ParseContext } from '../types.js';
import type { CdxComponent, CdxRating, CdxVulnerability } from './map.js';
import { BomRecords } from './records.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const CYCLONEDX_SHAPE = shapeCheck('a CycloneDX JSON BOM', [
  ['', 'object', 'an object'],
  ['metadata', 'object?', 'the metadata object'],
  ['metadata.component', 'object?', 'a component object'],
  ['components', 'array?', 'a list of components'],
  ['components[]', 'object', 'a component object'],
  ['vulnerabilities', 'array?', 'a list of vulnerabilities'],
  ['vulnerabilities[]', 'object', 'a vulnerability object'],
]);

function component(value: JsonObject): CdxComponent | undefined {
  const name = asText(value.name);
  if (!name) return undefined;
  return {
    bomRef: asText(value['bom-ref']),
    type: asText(value.type),
    name,
    group: asText(value.group),
    version: asText(value.version),
    purl: asText(value.purl),
    cpe: asText(value.cpe),
    publisher: asText(value.publisher) ?? asText(asObject(value.supplier)?.name),
  };
}

/** A component and the components nested in it, depth first. */
function* flatten(value: unknown, depth = 0): Generator<CdxComponent> {
  const object = asObject(value);
  if (!object || depth > 64) return;
  const c = component(object);
  if (c) yield c;
  for (const nested of asArray(object.components)) yield* flatten(nested, depth + 1);
}

function rating(value: unknown): CdxRating {
  const r = asObject(value) ?? {};
  return {
    method: asText(r.method),
    severity: asText(r.severity),
    score: asNumber(r.score),
    vector: asText(r.vector),
  };
}

function vulnerability(v: JsonObject): CdxVulnerability {
  const references = asArray(v.references).map(asObject);
  const analysis = asObject(v.analysis);
  return {
    id: asText(v.id),
    sourceUrl: asText(asObject(v.source)?.url),
    referenceIds: references.map((r) => asText(r?.id)).filter((id): id is string => id !== undefined),
    referenceUrls: references.map((r) => asText(asObject(r?.source)?.url)).filter((u): u is string => !!u),
    advisoryUrls: asArray(v.advisories)
      .map((a) => asText(asObject(a)?.url))
      .filter((u): u is string => u !== undefined),
    ratings: asArray(v.ratings).map(rating),
    cwes: asArray(v.cwes)
      .map(asText)
      .filter((c): c is string => c !== undefined),
    description: asText(v.description),
    detail: asText(v.detail),
    recommendation: asText(v.recommendation),
    published: asText(v.published),
    analysis: analysis && {
      state: asText(analysis.state),
      justification: asText(analysis.justification),
      detail: asText(analysis.detail),
      responses: texts(analysis.response),
    },
    affects: asArray(v.affects)
      .map(asObject)
      .filter((a): a is JsonObject => asText(a?.ref) !== undefined)
      .map((a) => ({
        ref: asText(a.ref)!,
        fixedVersion: asArray(a.versions)
          .map(asObject)
          .filter((x) => asText(x?.status) === 'unaffected')
          .map((x) => asText(x?.version))
          .find(Boolean),
      })),
  };
}

/**
 * A CycloneDX JSON BOM: `metadata.component` (the asset), `components[]` (software, nested
 * ones too) and `vulnerabilities[]`, each read whole as it streams past.
 */
export async function* jsonBomRecords(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const records = new BomRecords(context);
  let format: string | undefined;
  let specVersion: string | undefined;
  const pick = (path: readonly (string | number)[]) =>
    (path.length === 1 && (path[0] === 'bomFormat' || path[0] === 'specVersion')) ||
    (path.length === 2 && path[0] === 'metadata' && path[1] === 'component') ||
    (path.length === 2 &&
      (path[0] === 'components' || path[0] === 'vulnerabilities') &&
      typeof path[1] === 'number');
  const values = jsonValues(input, pick, {
    onValue: CYCLONEDX_SHAPE,
    maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
  });
  for await (const { path, value } of values) {
    if (path[0] === 'bomFormat') format = asText(value);
    else if (path[0] === 'specVersion') specVersion = asText(value);
    else if (path[0] === 'metadata') {
      const subject = asObject(value) && component(asObject(value)!);
      if (subject) records.describe(subject);
    } else if (path[0] === 'components') {
      for (const c of flatten(value)) yield* records.component(c);
    } else {
      const v = asObject(value);
      if (v) yield* records.vulnerability(vulnerability(v));
    }
  }
  if (format?.toLowerCase() !== 'cyclonedx' && specVersion === undefined)
    throw new ReportError(
      'This is not a CycloneDX JSON BOM: it has no "bomFormat": "CycloneDX" nor a specVersion.',
    );
  records.finish();
}
