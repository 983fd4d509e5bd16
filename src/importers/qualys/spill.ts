import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Values held in a temporary file, one JSON document a line, until the rest of the report has
 * been read: Qualys's Asset Data Report lists every host's detections before the glossary that
 * names them, and keeping them on disk keeps memory flat however large the report is.
 */
export class Spill<T> {
  private constructor(
    private readonly dir: string,
    private readonly out: WriteStream,
  ) {}

  static async open<T>(): Promise<Spill<T>> {
    const dir = await mkdtemp(join(tmpdir(), 'rampart-spill-'));
    const out = createWriteStream(join(dir, 'values.jsonl'), { encoding: 'utf8' });
    return new Spill<T>(dir, out);
  }

  async write(value: T): Promise<void> {
    if (!this.out.write(`${JSON.stringify(value)}\n`)) await once(this.out, 'drain');
  }

  /** Everything written, in order (writing ends). */
  async *read(): AsyncGenerator<T> {
    this.out.end();
    await once(this.out, 'finish');
    const input = createReadStream(join(this.dir, 'values.jsonl'), 'utf8');
    const lines = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const line of lines) if (line) yield JSON.parse(line) as T;
    } finally {
      lines.close();
      input.destroy();
    }
  }

  /** Removes the file; safe to call more than once. */
  async dispose(): Promise<void> {
    this.out.destroy();
    await rm(this.dir, { recursive: true, force: true });
  }
}
