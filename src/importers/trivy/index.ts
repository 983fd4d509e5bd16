/**
 * Trivy JSON reports (`trivy image|fs|repo|config|sbom --format json`, `trivy k8s --format json`).
 *
 * Layouts: schema 2 (`{ SchemaVersion: 2, ArtifactName, ArtifactType, Metadata, Results }`), the
 * legacy bare array of results (Trivy before 0.20), and Kubernetes reports (`{ ClusterName,
 * Resources: [{ Namespace, Kind, Name, Results }] }`). Each result (`Target`, `Class`, `Type`)
 * lists Vulnerabilities (→ one finding per vulnerability × package, located at the package),
 * Misconfigurations (→ findings in the file, at the cause's first line), Secrets, Licenses (the
 * ones Trivy's license policy rates), Packages (→ software of the asset) and, with
 * --show-suppressed, ExperimentalModifiedFindings (→ findings closed by their VEX statement).
 *
 * Severity (TRIVY_SEVERITY): CRITICAL → Critical, HIGH → High, MEDIUM → Medium, LOW → Low,
 * UNKNOWN → Info (or the band of the CVSS v3 score when the report carries one). Trivy's own
 * severity is kept: it is the rating of the vendor it trusts for the package (the distribution
 * for OS packages), which is what the package's users should act on; CVSS is recorded beside it.
 *
 * States: a vulnerability whose Status is "not_affected" (the vendor's VEX statement) is a
 * false positive; every other Status leaves it open (see vendorState in map.ts). Suppressed
 * entries carry their VEX or .trivyignore decision.
 *
 * Memory: one item (a vulnerability, a package…) at a time, plus the report's header fields.
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asText as text, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, Importer, ImportRecord, ParseContext } from '../types.js';
import { emptyHeader, kubernetesImage, type ResourceImage, type TrivyHeader, trivyAsset } from './asset.js';
import {
  licenseFinding,
  misconfigurationFinding,
  modifiedFinding,
  packageSoftware,
  secretFinding,
  type TrivyScope,
  vulnerabilityFinding,
} from './map.js';

export { TRIVY_SEVERITY } from './map.js';

const ITEM_LISTS = [
  'Vulnerabilities',
  'Misconfigurations',
  'Secrets',
  'Licenses',
  'Packages',
  'ExperimentalModifiedFindings',
] as const;
type ItemList = (typeof ITEM_LISTS)[number];

/** Where a picked value sits in the report. */
type Slot =
  | { kind: 'header'; field: string }
  | { kind: 'resource'; resource: string; field: string }
  | { kind: 'image'; resource: string; image: number; field: string }
  | { kind: 'result'; result: string; resource?: string; field: 'Target' | 'Class' | 'Type' }
  | { kind: 'item'; result: string; resource?: string; list: ItemList };

const HEADER_FIELDS = new Set(['SchemaVersion', 'ArtifactName', 'ArtifactType', 'ClusterName']);
const METADATA_FIELDS = new Set(['OS', 'RepoTags', 'RepoDigests', 'ImageID']);
/**
 * Kubernetes reports: `Resources` (`--report all`), `Findings` (`--report summary`), or
 * `Vulnerabilities` and `Misconfigurations` in older ones.
 */
const RESOURCE_LISTS = new Set(['Resources', 'Findings', 'Vulnerabilities', 'Misconfigurations']);
const RESOURCE_FIELDS = new Set(['Namespace', 'Kind', 'Name']);
/** What a resource's Metadata says of each image it runs (one object, or a list of them). */
const IMAGE_FIELDS = new Set(['RepoTags', 'RepoDigests', 'OS']);
/** Top-level keys only a Trivy report has; without one of them the file is something else. */
const TRIVY_KEYS = new Set(['SchemaVersion', 'Results', 'ArtifactName', 'ClusterName', 'Resources']);

/** The lists a Trivy report is read through, wherever results sit (top level, a legacy list, a resource). */
const TRIVY_SHAPE = shapeCheck('a Trivy JSON report', [
  ['', 'object|array?', 'an object (or a list of results)'],
  ...(['Results[]', '[]', ...[...RESOURCE_LISTS].map((list) => `${list}[].Results[]`)] as const).flatMap(
    (result) => [
      [result, 'object', 'a result object'] as const,
      ...ITEM_LISTS.flatMap((items) => [
        [`${result}.${items}`, 'array?', `a list of ${items.toLowerCase()}`] as const,
        [`${result}.${items}[]`, 'object', `an object`] as const,
      ]),
    ],
  ),
  ['Results', 'array?', 'a list of results'],
  ...[...RESOURCE_LISTS].flatMap((list) => [
    [list, 'array?', `a list of resources`] as const,
    [`${list}[]`, 'object', 'a resource object'] as const,
    [`${list}[].Results`, 'array?', 'a list of results'] as const,
  ]),
]);

/** Where the results start in `path`, and the resource (Kubernetes) they belong to. */
function resultsAt(path: JsonPath): { at: number; resource?: string } | undefined {
  if (typeof path[0] === 'number') return { at: 1 };
  if (path[0] === 'Results' && typeof path[1] === 'number') return { at: 2 };
  if (!RESOURCE_LISTS.has(String(path[0])) || typeof path[1] !== 'number') return undefined;
  return path[2] === 'Results' && typeof path[3] === 'number'
    ? { at: 4, resource: `${path[0]}.${path[1]}` }
    : undefined;
}

/** A Kubernetes resource's own fields: Namespace, Kind, Name, and its images' Metadata. */
function resourceSlot(path: JsonPath): Slot | undefined {
  if (!RESOURCE_LISTS.has(String(path[0])) || typeof path[1] !== 'number') return undefined;
  const resource = `${path[0]}.${path[1]}`;
  if (path.length === 3 && RESOURCE_FIELDS.has(String(path[2])))
    return { kind: 'resource', resource, field: String(path[2]) };
  if (path[2] !== 'Metadata') return undefined;
  // Metadata is one object (Trivy before 0.50) or a list with one object per image.
  const image = typeof path[3] === 'number' ? path[3] : 0;
  const field = typeof path[3] === 'number' ? path[4] : path[3];
  const depth = typeof path[3] === 'number' ? 5 : 4;
  return path.length === depth && IMAGE_FIELDS.has(String(field))
    ? { kind: 'image', resource, image, field: String(field) }
    : undefined;
}

function classify(path: JsonPath): Slot | undefined {
  if (path.length === 1 && HEADER_FIELDS.has(String(path[0])))
    return { kind: 'header', field: String(path[0]) };
  if (path.length === 2 && path[0] === 'Metadata' && METADATA_FIELDS.has(String(path[1])))
    return { kind: 'header', field: String(path[1]) };
  const own = resourceSlot(path);
  if (own) return own;
  const where = resultsAt(path);
  if (!where) return undefined;
  const result = path.slice(0, where.at).join('.');
  const rest = path.slice(where.at);
  if (rest.length === 1 && (rest[0] === 'Target' || rest[0] === 'Class' || rest[0] === 'Type'))
    return { kind: 'result', result, resource: where.resource, field: rest[0] };
  if (rest.length === 2 && typeof rest[1] === 'number' && ITEM_LISTS.includes(rest[0] as ItemList))
    return { kind: 'item', result, resource: where.resource, list: rest[0] as ItemList };
  return undefined;
}

interface ResultState {
  key: string;
  target?: string;
  targetSeen: boolean;
  resultClass?: string;
  resultType?: string;
  resource?: string;
  namespace?: string;
  /** The resource's key in the report (Kubernetes), for its images. */
  resourceKey?: string;
  /** Settled at the result's first item. */
  asset?: AssetRef;
  /** Items read before their result's Target (not Trivy's order, but valid JSON). */
  pending: { list: ItemList; value: unknown }[];
}

/** What is known of the Kubernetes resource being read. */
interface ResourceState {
  key: string;
  fields: Record<string, string>;
  images: ResourceImage[];
  /** The image the resource's last image result was about (its language packages follow it). */
  lastImage?: AssetRef;
}

/** Follows one report through its picked values, keeping only the context items need. */
class TrivyReader {
  private readonly header: TrivyHeader = emptyHeader();
  private resource: ResourceState | undefined;
  private result: ResultState | undefined;
  private asset: AssetRef | undefined;
  private readonly limits: TextLimits;
  private recognised = false;
  private arrayItems = 0;
  private skipped = 0;

  constructor(
    private readonly context: ParseContext,
    /** The report's first character: "{", "[" (legacy layout) or "n" (legacy `null`). */
    private readonly root: string,
  ) {
    this.limits = textLimits(context);
  }

  /** Called for every value's path: notes what makes the file a Trivy report, picks what we read. */
  pick(path: JsonPath): boolean {
    if (path.length === 0) return this.root === 'n';
    if (path.length === 1 && TRIVY_KEYS.has(String(path[0]))) this.recognised = true;
    if (path.length === 1 && typeof path[0] === 'number') this.arrayItems += 1;
    if (path.length === 2 && typeof path[0] === 'number' && path[1] === 'Target') this.recognised = true;
    return classify(path) !== undefined;
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    if (path.length === 0) {
      if (value === null) this.recognised = true; // old Trivy wrote `null` for a clean image
      return;
    }
    const slot = classify(path);
    if (!slot) return;
    if (slot.kind === 'header') return this.setHeader(slot.field, value);
    if (slot.kind === 'resource') return this.setResource(slot.resource, slot.field, value);
    if (slot.kind === 'image') return this.setImage(slot.resource, slot.image, slot.field, value);
    yield* this.enterResult(slot.result, slot.resource);
    const result = this.result!;
    if (slot.kind === 'result') {
      if (slot.field === 'Class') result.resultClass = text(value);
      else if (slot.field === 'Type') result.resultType = text(value);
      else {
        result.target = text(value);
        result.targetSeen = true;
        yield* this.flush(result);
      }
      return;
    }
    if (!result.targetSeen) result.pending.push({ list: slot.list, value });
    else yield* this.emit(slot.list, value, result);
  }

  *finish(): Generator<ImportRecord> {
    if (this.result) yield* this.flush(this.result);
    // An empty list is a legacy report of a clean artifact.
    if (!this.recognised && !(this.root === '[' && this.arrayItems === 0))
      throw new ReportError(
        'This is not a Trivy JSON report: it has none of SchemaVersion, Results, ClusterName or Resources, and is not a list of results with a Target.',
      );
    if (this.skipped > 0)
      this.context.warn(`${this.skipped} Trivy entries without an id or package name were skipped.`);
  }

  private setHeader(field: string, value: unknown): void {
    const h = this.header;
    if (field === 'ArtifactName') h.artifactName = text(value);
    else if (field === 'ArtifactType') h.artifactType = text(value);
    else if (field === 'ClusterName') h.clusterName = text(value);
    else if (field === 'ImageID') h.imageId = text(value);
    else if (field === 'RepoTags') h.repoTags = texts(value);
    else if (field === 'RepoDigests') h.repoDigests = texts(value);
    else if (field === 'OS' && value && typeof value === 'object') {
      const os = value as Record<string, unknown>;
      h.operatingSystem = [text(os.Family), text(os.Name)].filter(Boolean).join(' ') || undefined;
    }
  }

  /** The resource being read: only it is needed, as results follow their resource's fields. */
  private resourceAt(key: string): ResourceState {
    if (this.resource?.key !== key) this.resource = { key, fields: {}, images: [] };
    return this.resource;
  }

  private setResource(resource: string, field: string, value: unknown): void {
    const v = text(value);
    if (v) this.resourceAt(resource).fields[field] = v;
  }

  private setImage(resource: string, index: number, field: string, value: unknown): void {
    const images = this.resourceAt(resource).images;
    // A report lists a few images per resource; an absurd index is not worth an array of holes.
    if (index > images.length || index > 100) return;
    if (!images[index]) images[index] = { repoTags: [], repoDigests: [] };
    const image = images[index];
    if (field === 'RepoTags') image.repoTags = texts(value);
    else if (field === 'RepoDigests') image.repoDigests = texts(value);
    else if (value && typeof value === 'object') {
      const os = value as Record<string, unknown>;
      image.operatingSystem = [text(os.Family), text(os.Name)].filter(Boolean).join(' ') || undefined;
    }
  }

  private *enterResult(key: string, resource: string | undefined): Generator<ImportRecord> {
    if (this.result?.key === key) return;
    if (this.result) yield* this.flush(this.result);
    const r = resource && this.resource?.key === resource ? this.resource.fields : undefined;
    const name = r && [r.Namespace, r.Kind, r.Name].filter(Boolean).join('/');
    this.result = {
      key,
      targetSeen: false,
      pending: [],
      resource: name || undefined,
      namespace: r?.Namespace,
      resourceKey: resource,
    };
  }

  private *flush(result: ResultState): Generator<ImportRecord> {
    const pending = result.pending.splice(0);
    for (const item of pending) yield* this.emit(item.list, item.value, result);
  }

  private *emit(list: ItemList, value: unknown, result: ResultState): Generator<ImportRecord> {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      this.skipped += 1;
      return;
    }
    const item = value as Record<string, unknown>;
    const scope: TrivyScope = {
      asset: this.resultAsset(result),
      target: result.target,
      resultClass: result.resultClass,
      resultType: result.resultType,
      resource: result.resource,
      namespace: result.namespace,
    };
    const record = this.map(list, item, scope);
    if (record) yield tidyRecord(record, this.limits);
    else if (!(list === 'Misconfigurations' && String(item.Status).toUpperCase() === 'PASS'))
      this.skipped += 1;
  }

  private map(list: ItemList, item: Record<string, unknown>, scope: TrivyScope): ImportRecord | undefined {
    switch (list) {
      case 'Vulnerabilities':
        return vulnerabilityFinding(item, scope);
      case 'Misconfigurations':
        return misconfigurationFinding(item, scope);
      case 'Secrets':
        return secretFinding(item, scope);
      case 'Licenses':
        return licenseFinding(item, scope);
      case 'Packages':
        return packageSoftware(item, scope);
      case 'ExperimentalModifiedFindings':
        return modifiedFinding(item, scope);
    }
  }

  /**
   * The asset of a result's items. In a Kubernetes report, what a result finds inside an image
   * (packages, secrets) belongs to that image; configuration checks, and results whose image is
   * not known, belong to the cluster.
   */
  private resultAsset(result: ResultState): AssetRef {
    if (result.asset) return result.asset;
    const resource =
      result.resourceKey && this.resource?.key === result.resourceKey ? this.resource : undefined;
    let image: AssetRef | undefined;
    if (this.header.clusterName && resource && result.resultClass !== 'config') {
      image = kubernetesImage(result.target, resource.images, resource.lastImage);
      if (image) resource.lastImage = image;
    }
    result.asset = image ?? this.assetFor(result.target);
    return result.asset;
  }

  /** The asset, settled at the first record: the header precedes the results in Trivy's output. */
  private assetFor(firstTarget: string | undefined): AssetRef {
    if (!this.asset) {
      const { asset, warning } = trivyAsset(this.header, firstTarget);
      if (warning) this.context.warn(warning);
      this.asset = asset;
    }
    return this.asset;
  }
}

export const trivyImporter: Importer = {
  format: 'trivy',
  label: 'Trivy JSON (images, file systems, repositories, Kubernetes)',
  tool: 'Trivy',

  detect(head: string): number {
    if (/"SchemaVersion"\s*:\s*\d/.test(head) && /"(ArtifactName|ArtifactType|Results)"\s*:/.test(head))
      return 0.95;
    if (
      /"ClusterName"\s*:/.test(head) &&
      /"(Resources|Findings|Vulnerabilities|Misconfigurations)"\s*:\s*\[/.test(head)
    )
      return 0.9;
    if (
      head.trimStart().startsWith('[') &&
      /"Target"\s*:/.test(head) &&
      /"(Vulnerabilities|VulnerabilityID|Misconfigurations)"\s*:/.test(head)
    )
      return 0.85;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: a Trivy JSON report was expected.');
    if (start.first !== '{' && start.first !== '[' && start.first !== 'n')
      throw new ReportError('This is not a Trivy JSON report: it does not start with "{" or "[".');
    const reader = new TrivyReader(context, start.first);
    const values = jsonValues(start.input, (path) => reader.pick(path), {
      onValue: TRIVY_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) yield* reader.take(path, value);
    yield* reader.finish();
  },
};
