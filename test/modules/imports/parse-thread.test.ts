import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../../src/importers/index.js';
import { checkAssetIdentity } from '../../../src/modules/assets/service.js';
import { EVIDENCE_CAP } from '../../../src/modules/findings/service.js';
import { parseOnThread } from '../../../src/modules/imports/parse-thread.js';
import {
  ReportStaging,
  type StagedBatch,
  type StagingCounts,
  TEXT_CAP,
} from '../../../src/modules/imports/staging.js';
import { ReportError } from '../../../src/parsing/report-error.js';
import { estate, nessusReport } from './nessus-report.js';

const dir = mkdtempSync(join(tmpdir(), 'rampart-parse-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const empty = (): StagingCounts => ({ records: 0, skipped: 0, findings: 0, warnings: [] });

/** The batches and counts of a report staged in this thread, as imports did before the thread. */
async function stagedHere(
  text: string,
): Promise<{ batches: StagedBatch[]; counts: StagingCounts; error?: unknown }> {
  const staging = new ReportStaging('Nessus', checkAssetIdentity);
  const batches: StagedBatch[] = [];
  const parse = defaultRegistry()
    .byFormat('nessus')!
    .parse(Readable.from([text]), {
      warn: staging.warn,
      maxEvidenceChars: EVIDENCE_CAP,
      maxFieldChars: TEXT_CAP,
    });
  let error: unknown;
  try {
    for await (const record of parse) {
      staging.add(record);
      if (staging.full()) batches.push(staging.take());
    }
    batches.push(staging.take());
  } catch (e) {
    error = e;
  }
  const { records, skipped, findings, warnings } = staging;
  return { batches, counts: { records, skipped, findings, warnings }, error };
}

// 40 hosts of 60 items: more than two batches of 1,000 records, with warnings (a host without a
// valid address is named by its FQDN).
const hosts = estate(40, 60).map((h, i) => (i === 3 ? { ...h, ip: '10.50.0.999' } : h));
const report = nessusReport(hosts);

describe('parseOnThread', () => {
  it('hands over the batches and counts that staging the report in this thread gives', async () => {
    const path = write('whole.nessus', report);
    const batches: StagedBatch[] = [];
    const beats: boolean[] = [];
    const counts = empty();
    await parseOnThread(
      { path, format: 'nessus', source: 'Nessus' },
      async (batch, beat) => {
        if (batch) batches.push(batch);
        beats.push(beat);
      },
      counts,
    );
    const here = await stagedHere(report);
    expect(here.error).toBeUndefined();
    expect(batches.length).toBeGreaterThan(2);
    expect(batches).toEqual(here.batches);
    expect(counts).toEqual(here.counts);
    expect(counts.warnings.length).toBeGreaterThan(0);
  });

  it('fails with the parser’s error and location after handing over what it read before', async () => {
    const cut = report.slice(0, report.indexOf('<ReportHost', report.length / 2) + 60);
    const path = write('cut.nessus', cut);
    const batches: StagedBatch[] = [];
    const counts = empty();
    const failure = await parseOnThread(
      { path, format: 'nessus', source: 'Nessus' },
      async (batch) => {
        if (batch) batches.push(batch);
      },
      counts,
    ).catch((e: unknown) => e);
    const here = await stagedHere(cut);
    expect(here.error).toBeInstanceOf(ReportError);
    expect(failure).toBeInstanceOf(ReportError);
    const [there, local] = [failure as ReportError, here.error as ReportError];
    expect([there.message, there.line, there.column]).toEqual([local.message, local.line, local.column]);
    expect(there.line).toBeGreaterThan(0);
    expect(batches.length).toBeGreaterThan(0);
    // The batches handed over are the full ones read before the break; the counts all of it.
    expect(batches).toEqual(here.batches);
    expect(counts).toEqual(here.counts);
  });

  it('stops the thread when staging a batch fails, and fails with that error', async () => {
    const path = write('stop.nessus', report);
    let calls = 0;
    const failure = await parseOnThread(
      { path, format: 'nessus', source: 'Nessus' },
      async (batch) => {
        if (!batch) return;
        calls += 1;
        throw new Error('the database went away');
      },
      empty(),
    ).catch((e: unknown) => e);
    expect((failure as Error).message).toBe('the database went away');
    // Settled only once the thread has ended: it read no further batch.
    expect(calls).toBe(1);
  });

  it('fails clearly when the thread dies half-way, or throws', async () => {
    const script = new URL('./fixtures/dying-parser.mjs', import.meta.url);
    const counts = empty();
    const handled: boolean[] = [];
    const exited = await parseOnThread(
      { path: 'unused', format: 'exits', source: 'Test' },
      async (_batch, beat) => {
        handled.push(beat);
      },
      counts,
      { script },
    ).catch((e: unknown) => e);
    expect((exited as Error).message).toBe(
      "The report's parser thread stopped before the end of the report: it exited with code 3.",
    );
    expect(handled).toEqual([true]);
    expect(counts.records).toBe(10_000);
    const threw = await parseOnThread(
      { path: 'unused', format: 'throws', source: 'Test' },
      async () => {},
      empty(),
      { script },
    ).catch((e: unknown) => e);
    expect((threw as Error).message).toBe(
      "The report's parser thread stopped before the end of the report: the parser broke.",
    );
  });

  it('fails clearly for a report it cannot open', async () => {
    const failure = await parseOnThread(
      { path: join(dir, 'missing.nessus'), format: 'nessus', source: 'Nessus' },
      async () => {},
      empty(),
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/ENOENT/);
  });
});
