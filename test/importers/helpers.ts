import { createReadStream, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type {
  AssetRecord,
  FindingRecord,
  Importer,
  ImportRecord,
  ParseContext,
  ServiceRecord,
} from '../../src/importers/types.js';
import { ReportError } from '../../src/parsing/report-error.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export interface ManifestEntry {
  format: string;
  file: string;
  expectedFindings: number;
  firstFinding?: Record<string, unknown>;
  variant?: string;
  notes?: string;
}

/** The entries of test/fixtures/manifest.json (a copy of the shared samples' manifest) for a format. */
export function manifestEntries(format: string): ManifestEntry[] {
  const all = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as ManifestEntry[];
  return all.filter((e) => e.format === format);
}

export function fixturePath(file: string): string {
  return join(FIXTURES, file);
}

/** The first 64 KiB of a fixture as text, as detection sees it. */
export function head(file: string): string {
  return readFileSync(fixturePath(file))
    .subarray(0, 64 * 1024)
    .toString('utf8');
}

export interface Parsed {
  records: ImportRecord[];
  findings: FindingRecord[];
  warnings: string[];
}

function context(warnings: string[]): ParseContext {
  return { warn: (m) => warnings.push(m), maxEvidenceChars: 64 * 1024, maxFieldChars: 32 * 1024 };
}

async function collect(importer: Importer, input: Readable): Promise<Parsed> {
  const warnings: string[] = [];
  const records: ImportRecord[] = [];
  for await (const r of importer.parse(input, context(warnings))) records.push(r);
  return { records, findings: records.filter((r): r is FindingRecord => r.type === 'finding'), warnings };
}

/** Every record a fixture file yields. */
export function parseFixture(importer: Importer, file: string): Promise<Parsed> {
  return collect(importer, createReadStream(fixturePath(file)));
}

/** Every record some text yields (for hand-made broken or hostile inputs). */
export function parseText(importer: Importer, text: string): Promise<Parsed> {
  return collect(importer, Readable.from([Buffer.from(text, 'utf8')]));
}

/** The ReportError a parse fails with (the test fails if it does not). */
export async function failure(run: Promise<unknown>): Promise<ReportError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReportError);
  return error as ReportError;
}

/** The finding with this title (the test fails if there is none). */
export function byTitle(findings: FindingRecord[], title: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.title === title);
  expect(found, `a finding titled ${title}`).toBeDefined();
  return found!;
}

export const services = (records: ImportRecord[]) =>
  records.filter((r): r is ServiceRecord => r.type === 'service');
export const assets = (records: ImportRecord[]) =>
  records.filter((r): r is AssetRecord => r.type === 'asset');
