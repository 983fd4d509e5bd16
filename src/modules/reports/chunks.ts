/** The size of a stored chunk of a report file. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * Collects a report's bytes as a renderer writes them (synchronously, as pdfkit's stream emits
 * them) and stores them in order, a chunk of CHUNK_BYTES at a time. `drain()` waits until no more
 * than one chunk is held, so a renderer that awaits it between rows keeps memory bounded whatever
 * the size of the file.
 */
export class ChunkWriter {
  private parts: Buffer[] = [];
  private held = 0;
  private seq = 0;
  private storing: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** Bytes written so far. */
  size = 0;

  constructor(private readonly store: (seq: number, data: Buffer) => Promise<void>) {}

  write(data: Buffer | string): void {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (buffer.length === 0) return;
    this.parts.push(buffer);
    this.held += buffer.length;
    this.size += buffer.length;
    while (this.held >= CHUNK_BYTES) this.cut(CHUNK_BYTES);
  }

  /** Waits for the chunks cut so far to be stored. */
  async drain(): Promise<void> {
    await this.storing;
    if (this.failure) throw this.failure;
  }

  /** Stores what is left and waits for every chunk. */
  async end(): Promise<void> {
    if (this.held > 0) this.cut(this.held);
    await this.drain();
  }

  private cut(bytes: number): void {
    const all = Buffer.concat(this.parts, this.held);
    const chunk = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.parts = rest.length ? [Buffer.from(rest)] : [];
    this.held = rest.length;
    const seq = this.seq++;
    this.storing = this.storing.then(async () => {
      if (this.failure) return;
      try {
        await this.store(seq, Buffer.from(chunk));
      } catch (error) {
        this.failure = error;
      }
    });
  }
}
