/**
 * OpenVEX documents (https://openvex.dev, spec v0.0.1–v0.2.0): statements that a vulnerability
 * affects, or does not affect, products.
 *
 * One finding per statement and product (and per subcomponent the statement names): a decision
 * about one product never closes a sibling's finding. Later statements about the same product
 * and vulnerability come later in the import, as OpenVEX orders them.
 *
 * Status → state (see statusState): not_affected → FalsePositive, the justification and impact
 * statement its reason; fixed → Fixed; affected and under_investigation → open; a status the
 * spec does not define → open, like under_investigation, with a warning.
 *
 * Severity (OPENVEX_SEVERITY): VEX carries none. affected → Medium; everything else → Info.
 *
 * Asset and location (see targets): a product with subcomponents is the asset — its image for
 * an oci/docker package URL, else a project named after the package — and each subcomponent is
 * a Package location in it. A product without subcomponents is the affected thing itself: an
 * image is its own asset, located at the image; a package (the common case, e.g. Alpine packages)
 * is a Package location (name@version from its package URL) in the asset the document stands for,
 * a project named after the document's @id (else its author): OpenVEX does not say what holds
 * such packages, and one document's statements belong together.
 *
 * Memory: one statement read whole at a time; the document's header fields come first.
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
import { statementFindings, type VexDocument } from './map.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const OPENVEX_SHAPE = shapeCheck('an OpenVEX document', [
  ['', 'object', 'an object'],
  ['statements', 'array?', 'a list of statements'],
]);

export { OPENVEX_SEVERITY } from './map.js';

const OPENVEX_CONTEXT = /^https?:\/\/openvex\.dev\/ns/i;

/** Stands in for the document when it names neither its @id nor its author. */
const UNNAMED_DOCUMENT: AssetRef = { kind: 'CodeRepository', repository: '(unknown OpenVEX document)' };

class OpenVexReader implements VexDocument {
  id: string | undefined;
  author: string | undefined;
  private context: string | undefined;
  private hasStatements = false;
  private documentAsset: AssetRef | undefined;
  private skipped = 0;
  private unknownStatus = 0;
  private readonly limits: TextLimits;

  constructor(private readonly parseContext: ParseContext) {
    this.limits = textLimits(parseContext);
  }

  pick(path: JsonPath): boolean {
    if (path.length === 1 && path[0] === 'statements') this.hasStatements = true;
    if (path.length === 1) return path[0] === '@context' || path[0] === '@id' || path[0] === 'author';
    return path.length === 2 && path[0] === 'statements' && typeof path[1] === 'number';
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    if (path[0] === '@context') this.context = asText(value);
    else if (path[0] === '@id') this.id = asText(value);
    else if (path[0] === 'author') this.author = asText(value);
    else yield* this.statement(value);
  }

  finish(): void {
    const recognised =
      this.hasStatements || (this.context !== undefined && OPENVEX_CONTEXT.test(this.context));
    if (!recognised)
      throw new ReportError(
        'This is not an OpenVEX document: it has no "statements" list and no OpenVEX "@context".',
      );
    if (this.skipped > 0)
      this.parseContext.warn(
        `${this.skipped} OpenVEX statements without a vulnerability, a status or a product were skipped.`,
      );
    if (this.unknownStatus > 0)
      this.parseContext.warn(
        `${this.unknownStatus} OpenVEX statements have a status the specification does not define; they are imported open, as under_investigation.`,
      );
  }

  /** The document as an asset, settled when a statement first needs it (the header comes first). */
  asset(): AssetRef {
    if (this.documentAsset) return this.documentAsset;
    const name = this.id ?? this.author;
    if (!name)
      this.parseContext.warn(
        `The OpenVEX document names neither its @id nor its author; packages it speaks of are filed under "${UNNAMED_DOCUMENT.repository}".`,
      );
    this.documentAsset = name ? { kind: 'CodeRepository', repository: name } : UNNAMED_DOCUMENT;
    return this.documentAsset;
  }

  private *statement(value: unknown): Generator<ImportRecord> {
    const statement = asObject(value);
    const result = statement ? statementFindings(statement, this) : ({ kind: 'skipped' } as const);
    if (result.kind === 'skipped') {
      this.skipped += 1;
      return;
    }
    if (result.unknownStatus) this.unknownStatus += 1;
    for (const finding of result.findings) yield tidyRecord(finding, this.limits);
  }
}

export const openvexImporter: Importer = {
  format: 'openvex',
  label: 'OpenVEX document (JSON)',
  tool: 'OpenVEX',

  detect(head: string): number {
    if (/"@context"\s*:\s*"https?:\/\/openvex\.dev\/ns/i.test(head)) return 0.95;
    // Without the context: statements that pair products with an OpenVEX status.
    if (
      /"statements"\s*:\s*\[/.test(head) &&
      /"products"\s*:\s*\[/.test(head) &&
      /"status"\s*:\s*"(not_affected|affected|fixed|under_investigation)"/.test(head)
    )
      return 0.7;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: an OpenVEX document was expected.');
    if (start.first !== '{')
      throw new ReportError('This is not an OpenVEX document: it does not start with "{".');
    const reader = new OpenVexReader(context);
    const values = jsonValues(start.input, (path) => reader.pick(path), {
      onValue: OPENVEX_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) yield* reader.take(path, value);
    reader.finish();
  },
};
