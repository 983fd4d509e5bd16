import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { type XmlAncestor, type XmlElement, xmlElements } from '../../parsing/xml.js';
import type { ImportRecord, ParseContext } from '../types.js';
import type { CdxComponent, CdxVulnerability } from './map.js';
import { BomRecords } from './records.js';

/**
 * Element names without their prefix: CycloneDX 1.0–1.3 BOMs put vulnerabilities in an
 * extension namespace ("v:vulnerability"), which is read like the 1.4+ element of that name.
 */
function local(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

function kids(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c) => local(c.name) === name) : [];
}

function kid(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((c) => local(c.name) === name);
}

function textOf(element: XmlElement | undefined): string | undefined {
  const text = element?.text.trim();
  return text ? text : undefined;
}

function kidText(element: XmlElement | undefined, name: string): string | undefined {
  return textOf(kid(element, name));
}

function component(el: XmlElement): CdxComponent | undefined {
  const name = kidText(el, 'name');
  if (!name) return undefined;
  return {
    bomRef: el.attributes['bom-ref']?.trim() || undefined,
    type: el.attributes.type,
    name,
    group: kidText(el, 'group'),
    version: kidText(el, 'version'),
    purl: kidText(el, 'purl'),
    cpe: kidText(el, 'cpe'),
    publisher: kidText(el, 'publisher') ?? kidText(kid(el, 'supplier'), 'name'),
  };
}

function score(rating: XmlElement): number | undefined {
  // 1.4+: <score>9.8</score>; the 1.0 extension: <v:score><v:base>9.8</v:base>…</v:score>
  const raw = kidText(rating, 'score') ?? kidText(kid(rating, 'score'), 'base');
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

function affects(el: XmlElement, embedded: boolean): CdxVulnerability['affects'] {
  const targets = kids(kid(el, 'affects'), 'target').flatMap((t) => {
    const ref = kidText(t, 'ref');
    if (!ref) return [];
    const unaffected = kids(kid(t, 'versions'), 'version').find((v) => kidText(v, 'status') === 'unaffected');
    return [{ ref, fixedVersion: kidText(unaffected, 'version') }];
  });
  // The 1.0 extension names the component in a `ref` attribute, unless the component holds it.
  const legacyRef = embedded ? undefined : el.attributes.ref?.trim();
  return legacyRef ? [...targets, { ref: legacyRef }] : targets;
}

function vulnerability(el: XmlElement, embedded: boolean): CdxVulnerability {
  const references = kids(kid(el, 'references'), 'reference');
  const analysis = kid(el, 'analysis');
  const recommendations = kids(kid(el, 'recommendations'), 'recommendation').map(textOf).filter(Boolean);
  return {
    id: kidText(el, 'id'),
    sourceUrl: kidText(kid(el, 'source'), 'url'),
    referenceIds: references.map((r) => kidText(r, 'id')).filter((id): id is string => id !== undefined),
    referenceUrls: references.map((r) => kidText(kid(r, 'source'), 'url')).filter((u): u is string => !!u),
    advisoryUrls: kids(kid(el, 'advisories'), 'advisory')
      .map((a) => kidText(a, 'url') ?? textOf(a))
      .filter((u): u is string => u !== undefined),
    ratings: kids(kid(el, 'ratings'), 'rating').map((r) => ({
      method: kidText(r, 'method'),
      severity: kidText(r, 'severity'),
      score: score(r),
      vector: kidText(r, 'vector'),
    })),
    cwes: kids(kid(el, 'cwes'), 'cwe')
      .map(textOf)
      .filter((c): c is string => c !== undefined),
    description: kidText(el, 'description'),
    detail: kidText(el, 'detail'),
    recommendation: kidText(el, 'recommendation') ?? (recommendations.join('\n') || undefined),
    published: kidText(el, 'published'),
    analysis: analysis && {
      state: kidText(analysis, 'state'),
      justification: kidText(analysis, 'justification'),
      detail: kidText(analysis, 'detail'),
      responses: kids(kid(analysis, 'responses'), 'response')
        .map(textOf)
        .filter((r): r is string => r !== undefined),
    },
    affects: affects(el, embedded),
  };
}

/** A component, its vulnerabilities (1.0 extension) and its nested components, depth first. */
function* componentRecords(el: XmlElement, records: BomRecords, depth = 0): Generator<ImportRecord> {
  const c = component(el);
  if (c) {
    yield* records.component(c);
    for (const v of kids(kid(el, 'vulnerabilities'), 'vulnerability'))
      yield* records.vulnerability(vulnerability(v, true), c);
  }
  if (depth < 64)
    for (const nested of kids(kid(el, 'components'), 'component'))
      yield* componentRecords(nested, records, depth + 1);
}

const CDX_NAMESPACE = /^https?:\/\/cyclonedx\.org\/schema\/bom\//;

type Part = 'subject' | 'component' | 'vulnerability';

/** Which part of the BOM an element is, by its name and its parents'. */
function partOf(name: string, ancestors: readonly XmlAncestor[]): Part | undefined {
  if (ancestors.length !== 2) return undefined;
  const parent = local(ancestors[1]!.name);
  if (local(name) === 'component' && parent === 'metadata') return 'subject';
  if (local(name) === 'component' && parent === 'components') return 'component';
  if (local(name) === 'vulnerability' && parent === 'vulnerabilities') return 'vulnerability';
  return undefined;
}

/**
 * A CycloneDX XML BOM (1.0–1.6, with the 1.0 vulnerability extension of 1.2–1.3). Each
 * top-level component is read whole, with the components nested in it.
 */
export async function* xmlBomRecords(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const records = new BomRecords(context);
  const pick = (name: string, ancestors: readonly XmlAncestor[]) => {
    if (ancestors.length === 0 && local(name) !== 'bom')
      throw new ReportError(`This is not a CycloneDX BOM: the root element is <${name}>, not <bom>.`);
    if (ancestors.length === 1 && !Object.values(ancestors[0]!.attributes).some((v) => CDX_NAMESPACE.test(v)))
      throw new ReportError('This is not a CycloneDX BOM: <bom> is not in a CycloneDX namespace.');
    return partOf(name, ancestors) !== undefined;
  };
  const elements = xmlElements(input, pick, {
    maxTextChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
  });
  for await (const { element, ancestors } of elements) {
    const part = partOf(element.name, ancestors);
    if (part === 'subject') {
      const subject = component(element);
      if (subject) records.describe(subject);
    } else if (part === 'component') yield* componentRecords(element, records);
    else yield* records.vulnerability(vulnerability(element, false));
  }
  records.finish();
}
