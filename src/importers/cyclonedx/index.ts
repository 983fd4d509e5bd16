/**
 * CycloneDX BOMs with vulnerabilities (VEX / VDR), JSON or XML, specification 1.4–1.6, and the
 * older XML BOMs (1.2–1.3) that carry vulnerabilities in the 1.0 vulnerability extension.
 *
 * `metadata.component` is the asset (a container is the image; anything else a project);
 * `components` (nested ones too) are its software (Library, or OsPackage for deb/rpm/apk package
 * URLs); each vulnerability gives one finding per component it affects (`affects[].ref` is the
 * component's bom-ref), located at the package.
 *
 * Severity (CYCLONEDX_SEVERITY): the CVSS v3 rating's severity (critical, high, medium, low;
 * info and none → Info), else the band of its score; else the CVSS v4 rating's; else the first
 * severity given; "unknown" or nothing → Info.
 *
 * VEX: analysis.state not_affected and false_positive → FalsePositive (reason: the
 * justification and detail), resolved → Fixed, exploitable and in_triage → open.
 *
 * Memory: the components' names and versions by bom-ref (see BomRecords), one component or
 * vulnerability read whole at a time.
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { jsonBomRecords } from './json-bom.js';
import { xmlBomRecords } from './xml-bom.js';

export { CYCLONEDX_SEVERITY } from './map.js';

export const cyclonedxImporter: Importer = {
  format: 'cyclonedx',
  label: 'CycloneDX BOM with vulnerabilities (JSON or XML)',
  tool: 'CycloneDX',

  detect(head: string): number {
    if (/"bomFormat"\s*:\s*"CycloneDX"/i.test(head)) return 0.95;
    if (/<(\w+:)?bom\b[^>]*\bxmlns(:\w+)?\s*=\s*["']https?:\/\/cyclonedx\.org\/schema\/bom\//.test(head))
      return 0.95;
    if (/"specVersion"\s*:\s*"1\.\d"/.test(head) && /"(components|vulnerabilities)"\s*:\s*\[/.test(head))
      return 0.7;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined) throw new ReportError('The file is empty: a CycloneDX BOM was expected.');
    if (start.first === '<') yield* xmlBomRecords(start.input, context);
    else if (start.first === '{') yield* jsonBomRecords(start.input, context);
    else
      throw new ReportError('This is not a CycloneDX BOM: it starts with neither "{" (JSON) nor "<" (XML).');
  },
};
