import { BackupFormatError } from './format.js';

// A statement line is at most a COPY line naming every column of a table; a row can be any size.
const MAX_STATEMENT_LINE = 64 * 1024;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

/**
 * Reads a backup from a stream of bytes: statement lines one at a time, and COPY data passed on
 * in the chunks it came in (only `\.` lines are looked for), so that no more than a chunk or a
 * statement line is held at once. Counts lines, to name them in errors.
 */
export class LineReader {
  /** The number of the last line read (1 for the first). */
  line = 0;
  private buffer: Buffer = Buffer.alloc(0);
  private pos = 0;
  private midLine = false;
  private readonly chunks: AsyncIterator<Buffer | string>;

  constructor(input: AsyncIterable<Buffer | string>) {
    this.chunks = input[Symbol.asyncIterator]();
  }

  /** Appends the next chunk to what is left; false at the end of the input. */
  private async fill(): Promise<boolean> {
    const next = await this.chunks.next();
    if (next.done) return false;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    this.buffer =
      this.pos < this.buffer.length ? Buffer.concat([this.buffer.subarray(this.pos), chunk]) : chunk;
    this.pos = 0;
    return true;
  }

  /** Whether the input begins with `prefix` (read before anything else, not consumed). */
  async beginsWith(prefix: string): Promise<boolean> {
    const bytes = Buffer.from(prefix, 'utf8');
    while (this.buffer.length - this.pos < bytes.length) if (!(await this.fill())) break;
    return this.buffer.subarray(this.pos, this.pos + bytes.length).equals(bytes);
  }

  /** Whether the input has no (more) bytes. */
  async atEnd(): Promise<boolean> {
    while (this.buffer.length - this.pos === 0) if (!(await this.fill())) return true;
    return false;
  }

  /** The next line without its line break; null at the end of the input. */
  async nextLine(): Promise<string | null> {
    for (;;) {
      const end = this.buffer.indexOf(NEWLINE, this.pos);
      if (end >= 0) {
        const line = this.buffer.toString('utf8', this.pos, end);
        this.pos = end + 1;
        this.line++;
        return line;
      }
      if (this.buffer.length - this.pos > MAX_STATEMENT_LINE)
        throw new BackupFormatError(
          `a line of more than ${MAX_STATEMENT_LINE} bytes where a statement was expected`,
          this.line + 1,
        );
      if (!(await this.fill())) {
        if (this.pos >= this.buffer.length) return null;
        const line = this.buffer.toString('utf8', this.pos);
        this.pos = this.buffer.length;
        this.line++;
        return line;
      }
    }
  }

  /**
   * Passes the rows of a COPY block to `write`, up to its `\.` line (consumed); returns how many
   * rows. Throws BackupFormatError when the input ends first.
   */
  async copyRows(write: (chunk: Buffer) => Promise<void>): Promise<number> {
    let rows = 0;
    for (;;) {
      const buffer = this.buffer;
      const start = this.pos;
      let p = start;
      let endAt = -1;
      while (p < buffer.length) {
        if (this.midLine) {
          const end = buffer.indexOf(NEWLINE, p);
          if (end < 0) {
            p = buffer.length;
            break;
          }
          p = end + 1;
          this.midLine = false;
          rows++;
          this.line++;
          continue;
        }
        // At the start of a line: is it `\.`? Wait for its third byte when the chunk ends first.
        if (buffer[p] === BACKSLASH) {
          if (p + 1 >= buffer.length) break;
          if (buffer[p + 1] === DOT) {
            if (p + 2 >= buffer.length) break;
            if (buffer[p + 2] === NEWLINE) {
              endAt = p;
              break;
            }
          }
        }
        this.midLine = true;
      }
      if (p > start) await write(buffer.subarray(start, p));
      if (endAt >= 0) {
        this.pos = endAt + 3;
        this.line++;
        return rows;
      }
      this.pos = p;
      if (!(await this.fill())) {
        if (!this.midLine && this.buffer.toString('utf8', this.pos) === '\\.') {
          this.pos = this.buffer.length;
          this.line++;
          return rows;
        }
        throw new BackupFormatError(
          'the file ends inside a COPY block, before its "\\." line: it was cut short',
          this.line + 1,
        );
      }
    }
  }
}
