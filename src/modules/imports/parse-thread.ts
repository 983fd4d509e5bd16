import { Worker } from 'node:worker_threads';
import { ReportError } from '../../parsing/report-error.js';
import type { StagedBatch, StagingCounts } from './staging.js';

/** What the parser thread reads: the spooled report, in the format chosen, for this source. */
export interface ParseJob {
  path: string;
  format: string;
  source: string;
}

/** A parser thread's failure, as data: errors lose their class and fields between threads. */
export type ErrorData =
  | { kind: 'report'; message: string; line?: number; column?: number }
  | { kind: 'other'; name: string; message: string; stack?: string };

/** What the parser thread posts; it waits for an answer to each batch. */
export type ParserMessage =
  | { type: 'batch'; batch: StagedBatch | undefined; beat: boolean; records: number }
  | { type: 'done'; batch: StagedBatch; counts: StagingCounts }
  | { type: 'failed'; error: ErrorData; counts: StagingCounts };

/** The stager's answer to a batch: read on, or stop (it failed, or the import was superseded). */
export type StagerAnswer = 'go' | 'stop';

export function errorData(error: unknown): ErrorData {
  if (error instanceof ReportError)
    return { kind: 'report', message: error.message, line: error.line, column: error.column };
  const e = error instanceof Error ? error : new Error(String(error));
  return { kind: 'other', name: e.name, message: e.message, stack: e.stack };
}

/** The error again on this side: a ReportError as the parser threw it, anything else as an Error. */
export function reviveError(data: ErrorData): Error {
  if (data.kind === 'report') return ReportError.revive(data);
  const error = new Error(data.message);
  error.name = data.name;
  if (data.stack) error.stack = data.stack;
  return error;
}

/** Called for each batch, in order; `beat` every 10,000 records read (the import's heartbeat). */
export type BatchHandler = (batch: StagedBatch | undefined, beat: boolean) => Promise<void>;

export interface ParseThreadOptions {
  /** The thread's script (tests give one that dies); parse-worker's by default. */
  script?: URL;
}

// The parser thread's young generation. The main thread's grew to 64 MB semi-spaces (128 MB
// committed) while it parsed a 100,000-finding report, most of the process's peak above its
// live heap (bench:import); parsing garbage dies young, so a small one costs little.
const PARSER_YOUNG_GENERATION_MB = 8;
// How long a stopped parser thread gets to close the report before it is terminated.
const STOP_GRACE_MS = 5_000;

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_SCRIPT = new URL(FROM_SOURCE ? './parse-worker.ts' : './parse-worker.js', import.meta.url);

/**
 * Run from the TypeScript sources (tests, `npm run dev`): the thread needs tsx to load them, which
 * a process started by tsx passes on to its threads already.
 */
function workerExecArgv(): string[] | undefined {
  if (!FROM_SOURCE || process.execArgv.some((a) => a.includes('tsx'))) return undefined;
  return [...process.execArgv, '--import', 'tsx'];
}

/**
 * Parses a report on a thread of its own and hands its batches to `handle`, one at a time: the
 * thread waits for each to be staged before it reads on, so at most one batch is in flight. The
 * parsing's garbage is collected in that thread's small heap instead of growing this one's, and
 * this event loop only passes batches on. `counts` follows the records read and the warnings, so
 * that a failed import reports them. Rejects with the parser's error (a ReportError keeps its
 * message and location), the handler's error, or an Error when the thread died; the thread has
 * ended when it settles.
 */
export async function parseOnThread(
  job: ParseJob,
  handle: BatchHandler,
  counts: StagingCounts,
  options: ParseThreadOptions = {},
): Promise<void> {
  const worker = new Worker(options.script ?? WORKER_SCRIPT, {
    workerData: job,
    execArgv: workerExecArgv(),
    resourceLimits: { maxYoungGenerationSizeMb: PARSER_YOUNG_GENERATION_MB },
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  // Set once the thread has said its last (done, failed) or was told to stop: its exit is expected.
  let ending = false;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        ending = true;
        reject(error);
      };
      worker.on('message', (message: ParserMessage) => {
        if (message.type !== 'batch') ending = true;
        receive(message, handle, counts).then(
          (answer) => {
            if (answer === 'done') resolve();
            else worker.postMessage(answer satisfies StagerAnswer);
          },
          (error) => {
            // The thread waits for an answer: told to stop, it closes the report and ends.
            worker.postMessage('stop' satisfies StagerAnswer);
            fail(error);
          },
        );
      });
      worker.once('error', (error) => fail(threadDied(error.message)));
      void exited.then((code) => {
        if (!ending) fail(threadDied(`it exited with code ${code}`));
      });
    });
  } finally {
    const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

/** Handles one message: the answer to give, or 'done' at the end; throws the parser's failure. */
async function receive(
  message: ParserMessage,
  handle: BatchHandler,
  counts: StagingCounts,
): Promise<StagerAnswer | 'done'> {
  if (message.type === 'failed') {
    Object.assign(counts, message.counts);
    throw reviveError(message.error);
  }
  if (message.type === 'done') {
    Object.assign(counts, message.counts);
    await handle(message.batch, false);
    return 'done';
  }
  counts.records = message.records;
  await handle(message.batch, message.beat);
  return 'go';
}

function threadDied(why: string): Error {
  return new Error(`The report's parser thread stopped before the end of the report: ${why}.`);
}
