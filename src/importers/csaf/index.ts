/**
 * CSAF 2.0 advisories (OASIS Common Security Advisory Framework, JSON), including the VEX profile.
 *
 * One finding per vulnerability and product the vulnerability gives a status for: an advisory
 * routinely covers products in different states (one patched, another exposed). A product
 * listed under two statuses is read once, under the first of: affected, under_investigation,
 * fixed, not affected (see STATUS_ORDER in map.ts).
 *
 * Status → state: known_not_affected → FalsePositive (reason: the justification flag and impact
 * statement); fixed, first_fixed, recommended → Fixed; known_affected, first_affected,
 * last_affected, under_investigation → open.
 *
 * Severity (CSAF_SEVERITY): the CVSS v3 (else v4) baseSeverity of the score listing the product,
 * else the band of its base score; no score for the product → Medium (CSAF_UNSCORED_SEVERITY).
 *
 * Asset and location (see ProductTree.target): a product is its own asset — its image for an
 * oci/docker package URL, else a project named after the product without its version ("Generic
 * App") — located at the package it is (name and version from its package URL, else from the
 * product tree's product_name and product_version branches, else from its full name). A
 * relationship ("Library 3.4.5 as a component of App 1.0.0") is located at the component, in
 * the parent product's asset. A product id the tree does not define is located by the id, in a
 * project named after the advisory (its tracking id).
 *
 * Memory: the product tree index (bounded, see ProductTree) and one vulnerability at a time.
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asObject, asText, type JsonObject } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, Importer, ImportRecord, ParseContext } from '../types.js';
import { type CsafDocument, vulnerabilityFindings } from './map.js';
import { ProductTree } from './product-tree.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const CSAF_SHAPE = shapeCheck('a CSAF document', [
  ['', 'object', 'an object'],
  ['document', 'object', 'the document object'],
  ['vulnerabilities', 'array?', 'a list of vulnerabilities'],
  ['vulnerabilities[]', 'object', 'a vulnerability object'],
  ['product_tree', 'object?', 'the product tree object'],
]);

export { CSAF_SEVERITY, CSAF_UNSCORED_SEVERITY } from './map.js';
export { MAX_TREE_ENTRIES } from './product-tree.js';

/** The header fields read, by their path under `document`. */
const HEADER = new Map<string, keyof Omit<CsafDocument, 'asset'> | 'version'>([
  ['csaf_version', 'version'],
  ['title', 'title'],
  ['tracking.id', 'trackingId'],
  ['publisher.name', 'publisher'],
]);

class CsafReader implements CsafDocument {
  trackingId: string | undefined;
  title: string | undefined;
  publisher: string | undefined;
  private version: string | undefined;
  private documentAsset: AssetRef | undefined;
  private skipped = 0;
  private readonly tree: ProductTree;
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.tree = new ProductTree(context);
    this.limits = textLimits(context);
  }

  pick(path: JsonPath): boolean {
    if (path[0] === 'document') return HEADER.has(path.slice(1).join('.'));
    if (path[0] === 'product_tree') return ProductTree.picks(path);
    return path.length === 2 && path[0] === 'vulnerabilities' && typeof path[1] === 'number';
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    if (path[0] === 'document') this.header(HEADER.get(path.slice(1).join('.'))!, asText(value));
    else if (path[0] === 'product_tree') this.tree.take(path, value);
    else yield* this.vulnerability(asObject(value));
  }

  finish(): void {
    if (this.version === undefined)
      throw new ReportError('This is not a CSAF document: it has no "document" with a "csaf_version".');
    this.tree.finish();
    if (this.skipped > 0)
      this.context.warn(`${this.skipped} vulnerabilities without a CVE, an id or a title were skipped.`);
  }

  /** The advisory as an asset, for products its tree does not define. */
  asset(): AssetRef {
    this.documentAsset ??= {
      kind: 'CodeRepository',
      repository: this.trackingId ?? this.title ?? '(unknown CSAF advisory)',
    };
    return this.documentAsset;
  }

  private header(field: keyof Omit<CsafDocument, 'asset'> | 'version', value: string | undefined): void {
    if (field !== 'version') {
      this[field] = value;
      return;
    }
    // CSAF 1.x was the CVRF schema, a different shape: refuse it rather than misread it.
    if (!value?.startsWith('2'))
      throw new ReportError(`CSAF version ${value ?? '(none)'} is not supported: this reads CSAF 2.x.`);
    this.version = value;
  }

  private *vulnerability(v: JsonObject | undefined): Generator<ImportRecord> {
    const findings = v && vulnerabilityFindings(v, this.tree, this);
    if (!findings) {
      this.skipped += 1;
      return;
    }
    for (const finding of findings) yield tidyRecord(finding, this.limits);
  }
}

export const csafImporter: Importer = {
  format: 'csaf',
  label: 'CSAF 2.0 advisory or VEX (JSON)',
  tool: 'CSAF',

  detect(head: string): number {
    if (/"csaf_version"\s*:\s*"2(\.\d+)*"/.test(head)) return 0.95;
    if (/"category"\s*:\s*"csaf_[a-z_]+"/.test(head) && /"document"\s*:\s*\{/.test(head)) return 0.9;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined) throw new ReportError('The file is empty: a CSAF document was expected.');
    if (start.first !== '{')
      throw new ReportError('This is not a CSAF document: it does not start with "{".');
    const reader = new CsafReader(context);
    const values = jsonValues(start.input, (path) => reader.pick(path), {
      onValue: CSAF_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) yield* reader.take(path, value);
    reader.finish();
  },
};
