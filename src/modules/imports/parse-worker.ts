// The parser thread of an import (parse-thread.ts starts it): reads the report, checks and
// batches its records (staging.ts) and hands each batch to the thread that stages it, waiting for
// its answer before reading on. The parser's garbage stays in this thread's small heap.
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { defaultRegistry } from '../../importers/index.js';
import { checkAssetIdentity } from '../assets/service.js';
import { EVIDENCE_CAP } from '../findings/service.js';
import { errorData, type ParseJob, type ParserMessage, type StagerAnswer } from './parse-thread.js';
import { ReportStaging, type StagingCounts, TEXT_CAP } from './staging.js';

const HEARTBEAT_RECORDS = 10_000;

const port = parentPort;
if (!port) throw new Error('parse-worker.ts runs as a worker thread (parse-thread.ts).');

let answered: ((answer: StagerAnswer) => void) | undefined;
port.on('message', (answer: StagerAnswer) => {
  // Only a wait for an answer keeps this thread alive; it ends by itself once the report is read.
  port.unref();
  answered?.(answer);
});
port.unref();

/** Posts a message and waits for the stager's answer: go on, or stop reading. */
function send(message: ParserMessage): Promise<StagerAnswer> {
  return new Promise((resolve) => {
    answered = resolve;
    port?.ref();
    port?.postMessage(message);
  });
}

const countsOf = (s: ReportStaging): StagingCounts => ({
  records: s.records,
  skipped: s.skipped,
  findings: s.findings,
  warnings: s.warnings,
});

async function run(job: ParseJob): Promise<void> {
  const staging = new ReportStaging(job.source, checkAssetIdentity);
  try {
    const importer = defaultRegistry().byFormat(job.format);
    if (!importer) throw new Error(`No importer reads ${job.format} reports.`);
    const records = importer.parse(createReadStream(job.path), {
      warn: staging.warn,
      maxEvidenceChars: EVIDENCE_CAP,
      maxFieldChars: TEXT_CAP,
    });
    for await (const record of records) {
      staging.add(record);
      const beat = staging.records % HEARTBEAT_RECORDS === 0;
      if (!staging.full() && !beat) continue;
      const batch = staging.full() ? staging.take() : undefined;
      // Stopping the loop closes the report (the stager failed or the import was superseded).
      if ((await send({ type: 'batch', batch, beat, records: staging.records })) === 'stop') return;
    }
    port?.postMessage({
      type: 'done',
      batch: staging.take(),
      counts: countsOf(staging),
    } satisfies ParserMessage);
  } catch (error) {
    port?.postMessage({
      type: 'failed',
      error: errorData(error),
      counts: countsOf(staging),
    } satisfies ParserMessage);
  }
}

await run(workerData as ParseJob);
