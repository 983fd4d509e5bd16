import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';

/** JSON text held in memory before the spool moves to a temporary file. */
export const DEFAULT_MEMORY_CHARS = 16 * 1024 * 1024;

interface SpoolFile {
  dir: string;
  path: string;
  out: WriteStream;
}

/**
 * Holds JSON values that cannot be mapped yet, in order, and gives them back later. SARIF lets
 * a run's parts come in any order — Semgrep writes `results` before `tool` (whose rules give
 * the severity), some converters write `versionControlProvenance` (the repository) after
 * `results` — so a run's results may have to wait for the end of the run. Up to
 * `memoryChars` of JSON they wait in memory; past that, in a temporary file (one JSON value a
 * line), so memory stays flat however large the run.
 */
export class Spool {
  private values: unknown[] = [];
  private chars = 0;
  private file: SpoolFile | undefined;
  private count = 0;
  private failure: Error | undefined;

  constructor(private readonly memoryChars = DEFAULT_MEMORY_CHARS) {}

  get size(): number {
    return this.count;
  }

  /** The temporary directory values went to, while there is one. */
  get spillDirectory(): string | undefined {
    return this.file?.dir;
  }

  async push(value: unknown): Promise<void> {
    this.count += 1;
    const text = JSON.stringify(value);
    if (!this.file && this.chars + text.length <= this.memoryChars) {
      this.values.push(value);
      this.chars += text.length;
      return;
    }
    const file = this.file ?? (await this.openFile());
    if (this.failure) throw this.failure;
    if (!file.out.write(`${text}\n`)) await once(file.out, 'drain');
  }

  /** Every value pushed, in order; the spool is empty (and its file gone) afterwards. */
  async *drain(): AsyncGenerator<unknown> {
    const values = this.values;
    this.values = [];
    this.chars = 0;
    this.count = 0;
    let lines: Interface | undefined;
    try {
      yield* values;
      const file = this.file;
      if (!file) return;
      file.out.end();
      if (!file.out.writableFinished) await once(file.out, 'finish');
      if (this.failure) throw this.failure;
      lines = createInterface({ input: createReadStream(file.path), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) if (line) yield JSON.parse(line);
    } finally {
      // Also when the reader stops early (a failed import): the file must not stay behind.
      lines?.close();
      await this.dispose();
    }
  }

  /** Removes the temporary file, if any. Safe to call more than once. */
  async dispose(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    this.values = [];
    if (!file) return;
    file.out.destroy();
    await rm(file.dir, { recursive: true, force: true });
  }

  private async openFile(): Promise<SpoolFile> {
    const dir = await mkdtemp(join(tmpdir(), 'rampart-sarif-'));
    const path = join(dir, 'results.jsonl');
    const out = createWriteStream(path);
    // A full disk must fail the import, not the process: the error is thrown by the next call.
    out.on('error', (error) => {
      this.failure = error;
    });
    this.file = { dir, path, out };
    // Values already in memory stay there and come out first: order is kept.
    return this.file;
  }
}
