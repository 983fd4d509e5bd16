/**
 * Anchore Grype JSON reports (`grype <image|dir:…|sbom:…> -o json`).
 *
 * One finding per match: a vulnerability of one package artifact, located at the package
 * (name, version, and the artifact's first file path). Grype reports the same package found at
 * two paths as two artifacts, so this is DefectDojo's "detailed" (per-path) reading: nothing is
 * aggregated here, and the import's deduplication decides what is the same finding. Ignored
 * matches carry their decision (a VEX statement or an ignore rule naming the vulnerability).
 *
 * Severity (GRYPE_SEVERITY): Critical, High, Medium, Low as they are; Negligible → Info;
 * Unknown → the related vulnerability's rating, else the CVSS v3 band, else Info.
 *
 * Memory: Grype writes `source` (what was scanned: the asset) after `matches`. Findings read
 * before the asset is known are held in memory — at most MAX_HELD_MATCHES of them; past that
 * the rest are left out with a warning — and handed out once the report has been read. When a
 * report has `source` first (hand-edited or re-serialised), nothing is held.
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asObject, type JsonObject } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, FindingRecord, Importer, ImportRecord, ParseContext } from '../types.js';
import { ignoredState, matchFinding, sourceAsset } from './map.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const GRYPE_SHAPE = shapeCheck('a Grype JSON report', [
  ['', 'object', 'an object'],
  ['matches', 'array?', 'a list of matches'],
  ['matches[]', 'object', 'a match object'],
  ['ignoredMatches', 'array?', 'a list of ignored matches'],
  ['ignoredMatches[]', 'object', 'an ignored match object'],
]);

export { GRYPE_SEVERITY } from './map.js';

/** Findings held while the asset is unknown (see the memory note above). */
export const MAX_HELD_MATCHES = 50_000;

/** Stands in for the asset until `source` is read. */
const UNKNOWN_ASSET: AssetRef = { kind: 'ContainerImage', image: '(unknown)' };

class GrypeReader {
  private source: JsonObject | undefined;
  private distro: JsonObject | undefined;
  private asset: AssetRef | undefined;
  private readonly held: FindingRecord[] = [];
  private dropped = 0;
  private skipped = 0;
  private recognised = false;
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  pick(path: JsonPath): boolean {
    if (path.length === 1 && path[0] === 'matches') this.recognised = true;
    if (path.length === 1) return path[0] === 'source' || path[0] === 'distro';
    return (
      path.length === 2 &&
      (path[0] === 'matches' || path[0] === 'ignoredMatches') &&
      typeof path[1] === 'number'
    );
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    if (path[0] === 'source') this.source = asObject(value);
    else if (path[0] === 'distro') this.distro = asObject(value);
    else yield* this.match(path[0] === 'ignoredMatches', asObject(value));
  }

  *finish(): Generator<ImportRecord> {
    if (!this.recognised)
      throw new ReportError(
        'This is not a Grype JSON report: it has no "matches" list (grype -o json writes one).',
      );
    const { asset } = tidyRecord({ type: 'asset', asset: this.settleAsset() }, this.limits);
    for (const finding of this.held.splice(0)) yield { ...finding, asset };
    if (this.dropped > 0)
      this.context.warn(
        `${this.dropped} matches were left out: Grype names the scanned image after its matches, so at most ${MAX_HELD_MATCHES} can be held until then.`,
      );
    if (this.skipped > 0)
      this.context.warn(`${this.skipped} Grype matches without a vulnerability id or package were skipped.`);
  }

  private *match(ignored: boolean, match: JsonObject | undefined): Generator<ImportRecord> {
    const state = ignored && match ? ignoredState(match) : undefined;
    if (ignored && !state) return; // a filter, not a decision: Grype leaves it out, so do we
    const finding = match && matchFinding(match, this.asset ?? UNKNOWN_ASSET);
    if (!finding) {
      this.skipped += 1;
      return;
    }
    if (state) finding.state = state;
    if (!this.asset && this.source) this.asset = this.settleAsset();
    if (this.asset) yield tidyRecord({ ...finding, asset: this.asset }, this.limits);
    else if (this.held.length < MAX_HELD_MATCHES) this.held.push(tidyRecord(finding, this.limits));
    else this.dropped += 1;
  }

  private settleAsset(): AssetRef {
    if (this.asset) return this.asset;
    const asset = sourceAsset(this.source, this.distro);
    if (!asset)
      this.context.warn(
        'The report does not say what Grype scanned (no "source"); its findings are filed under an image named "(unknown)".',
      );
    this.asset = asset ?? UNKNOWN_ASSET;
    return this.asset;
  }
}

export const grypeImporter: Importer = {
  format: 'grype',
  label: 'Anchore Grype JSON (grype -o json)',
  tool: 'Grype',

  detect(head: string): number {
    if (/"bomFormat"\s*:/.test(head)) return 0;
    const matches = /"matches"\s*:\s*\[/.test(head);
    if (matches && /"(matchDetails|relatedVulnerabilities)"\s*:/.test(head)) return 0.95;
    if (/"descriptor"\s*:\s*\{[\s\S]{0,4000}?"name"\s*:\s*"grype"/.test(head)) return 0.9;
    if (matches && /"artifact"\s*:\s*\{/.test(head) && /"vulnerability"\s*:\s*\{/.test(head)) return 0.85;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: a Grype JSON report was expected.');
    if (start.first !== '{')
      throw new ReportError('This is not a Grype JSON report: it does not start with "{".');
    const reader = new GrypeReader(context);
    const values = jsonValues(start.input, (path) => reader.pick(path), {
      onValue: GRYPE_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) yield* reader.take(path, value);
    yield* reader.finish();
  },
};
