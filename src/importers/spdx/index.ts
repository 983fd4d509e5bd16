/**
 * SPDX 2.2 / 2.3 JSON SBOMs. SPDX 2.x has no vulnerability section: packages are software, and
 * a package's SECURITY external references of type advisory, fix or url that name a CVE or GHSA
 * id are its findings — one per package and id, however many references name it. References
 * naming no id are skipped with a warning; cpe22Type / cpe23Type references give the package's
 * CPE. SPDX 3 (JSON-LD) is refused with a clear message.
 *
 * Severity (SPDX_SEVERITY): SPDX carries none; every finding is Medium. There is no VEX in
 * SPDX 2.x, so findings carry no state.
 *
 * Asset (see subjectAsset): the SBOM's subject — the package the document DESCRIBES (or syft's
 * "SPDXRef-DocumentRoot-…" package). A container subject is the image (from its oci/docker
 * package URL, else name and version); anything else is a project named after the document's
 * `name`. The subject itself is not listed as software. Packages are located by name and
 * versionInfo.
 *
 * Memory: the subject may be named after the packages (syft writes its DESCRIBES relationship
 * last), so packages are held until it is known — at most MAX_HELD_PACKAGES; past that the asset
 * is settled on the document's name (with a warning) and the rest stream. One package read whole
 * at a time.
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asObject, asText } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, Importer, ImportRecord, ParseContext } from '../types.js';
import {
  isImage,
  packageFindings,
  packageSoftware,
  type SpdxPackage,
  spdxPackage,
  subjectAsset,
} from './map.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const SPDX_SHAPE = shapeCheck('an SPDX JSON document', [
  ['', 'object', 'an object'],
  ['packages', 'array?', 'a list of packages'],
  ['packages[]', 'object', 'a package object'],
  ['relationships', 'array?', 'a list of relationships'],
  ['relationships[]', 'object', 'a relationship object'],
  ['documentDescribes', 'array?', 'a list of SPDX ids'],
]);

export { SPDX_SEVERITY } from './map.js';

/** Packages held while the SBOM's subject is unknown (see the memory note above). */
export const MAX_HELD_PACKAGES = 50_000;

/** Ids the document says it describes that are kept; an SBOM describes one or a few things. */
const MAX_DESCRIBED = 1000;

const UNNAMED_DOCUMENT: AssetRef = { kind: 'CodeRepository', repository: '(unknown SPDX document)' };

const SPDX3 =
  'SPDX 3 (JSON-LD) is not supported: export the SBOM as SPDX 2.2 or 2.3 JSON (for example syft -o spdx-json@2.3).';

class SpdxReader {
  private spdxVersion: string | undefined;
  private documentName: string | undefined;
  private readonly described = new Set<string>();
  private held: SpdxPackage[] = [];
  private asset: AssetRef | undefined;
  private subjectId: string | undefined;
  private unnamed = 0;
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  pick(path: JsonPath): boolean {
    // Refused as soon as seen: picking SPDX 3's @graph would read the whole document.
    if (path.length === 1 && (path[0] === '@context' || path[0] === '@graph')) throw new ReportError(SPDX3);
    if (path.length === 1) return path[0] === 'spdxVersion' || path[0] === 'name';
    return (
      path.length === 2 &&
      ['packages', 'documentDescribes', 'relationships'].includes(path[0] as string) &&
      typeof path[1] === 'number'
    );
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    switch (path[0]) {
      case 'spdxVersion':
        this.version(asText(value));
        return;
      case 'name':
        this.documentName = asText(value);
        return;
      case 'documentDescribes':
        this.describe(asText(value));
        return;
      case 'relationships':
        this.relationship(asObject(value));
        return;
      default:
        yield* this.package(asObject(value));
    }
  }

  *finish(): Generator<ImportRecord> {
    if (!this.spdxVersion)
      throw new ReportError(
        'This is not an SPDX JSON document: it has no "spdxVersion" (such as "SPDX-2.3").',
      );
    if (!this.asset) yield* this.settle(this.subjectAtEnd());
    if (this.unnamed > 0)
      this.context.warn(
        `${this.unnamed} SECURITY references (advisory, fix, url) name no CVE or GHSA id and were skipped.`,
      );
  }

  private version(value: string | undefined): void {
    if (value?.startsWith('SPDX-3')) throw new ReportError(SPDX3);
    if (!value?.startsWith('SPDX-2'))
      throw new ReportError(`SPDX version ${value ?? '(none)'} is not supported: this reads SPDX 2.x JSON.`);
    this.spdxVersion = value;
  }

  private describe(id: string | undefined): void {
    if (id && this.described.size < MAX_DESCRIBED) this.described.add(id);
  }

  /** DESCRIBES from the document (or DESCRIBED_BY the document) names its subject. */
  private relationship(r: ReturnType<typeof asObject>): void {
    const type = asText(r?.relationshipType)?.toUpperCase();
    const from = asText(r?.spdxElementId);
    const to = asText(r?.relatedSpdxElement);
    if (type === 'DESCRIBES' && from === 'SPDXRef-DOCUMENT') this.describe(to);
    if (type === 'DESCRIBED_BY' && to === 'SPDXRef-DOCUMENT') this.describe(from);
  }

  /** True for the SBOM's subject: the one package the document describes, or syft's document root. */
  private isSubject(pkg: SpdxPackage): boolean {
    const id = pkg.spdxId ?? '';
    return (this.described.size === 1 && this.described.has(id)) || id.startsWith('SPDXRef-DocumentRoot-');
  }

  /**
   * The subject once everything is read (DESCRIBES relationships come last); lacking any, the one
   * container package, when there is exactly one.
   */
  private subjectAtEnd(): SpdxPackage | undefined {
    const described = this.held.find((p) => this.isSubject(p));
    if (described || this.described.size > 0) return described;
    const images = this.held.filter(isImage);
    return images.length === 1 ? images[0] : undefined;
  }

  private *package(value: ReturnType<typeof asObject>): Generator<ImportRecord> {
    const pkg = value && spdxPackage(value);
    if (!pkg) return;
    if (this.asset) yield* this.records(pkg);
    else if (this.isSubject(pkg)) {
      this.held.push(pkg);
      yield* this.settle(pkg);
    } else if (this.held.length < MAX_HELD_PACKAGES) this.held.push(pkg);
    else {
      this.context.warn(
        `The SBOM's subject was not found in its first ${MAX_HELD_PACKAGES} packages; its records are filed under the document's name.`,
      );
      yield* this.settle(undefined);
      yield* this.records(pkg);
    }
  }

  /** Settles the asset on the subject (or the document's name) and hands out the held packages. */
  private *settle(subject: SpdxPackage | undefined): Generator<ImportRecord> {
    this.subjectId = subject?.spdxId;
    this.asset = subjectAsset(subject, this.documentName);
    if (!this.asset)
      this.context.warn(
        `The SBOM names neither itself nor its subject; its records are filed under "${UNNAMED_DOCUMENT.repository}".`,
      );
    this.asset ??= UNNAMED_DOCUMENT;
    const held = this.held;
    this.held = [];
    for (const pkg of held) yield* this.records(pkg);
  }

  private *records(pkg: SpdxPackage): Generator<ImportRecord> {
    const asset = this.asset!;
    const software =
      pkg.spdxId !== undefined && pkg.spdxId === this.subjectId ? undefined : packageSoftware(pkg, asset);
    if (software) yield tidyRecord(software, this.limits);
    const { findings, unnamed } = packageFindings(pkg, asset);
    this.unnamed += unnamed;
    for (const finding of findings) yield tidyRecord(finding, this.limits);
  }
}

export const spdxImporter: Importer = {
  format: 'spdx',
  label: 'SPDX 2.2 / 2.3 SBOM (JSON)',
  tool: 'SPDX',

  detect(head: string): number {
    if (/"spdxVersion"\s*:\s*"SPDX-2\.\d+"/.test(head)) return 0.9;
    if (/"SPDXID"\s*:\s*"SPDXRef-DOCUMENT"/.test(head)) return 0.85;
    // SPDX 3: claimed so that the import says why it cannot be read.
    if (/"@context"\s*:\s*"https?:\/\/spdx\.org\/rdf\/3\./.test(head)) return 0.6;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: an SPDX JSON document was expected.');
    if (start.first !== '{')
      throw new ReportError(
        'This is not an SPDX JSON document: it does not start with "{" (tag-value SPDX is not read; export JSON).',
      );
    const reader = new SpdxReader(context);
    const values = jsonValues(start.input, (path) => reader.pick(path), {
      onValue: SPDX_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) yield* reader.take(path, value);
    yield* reader.finish();
  },
};
