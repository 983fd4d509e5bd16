import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BatchedOutput, OutputClosedError } from '../../../src/db/backup/dump.js';

/** A destination that takes a chunk every millisecond, noting how much it held at most. */
function slowDestination() {
  let most = 0;
  let bytes = 0;
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      setTimeout(callback, 1);
    },
  });
  const write = out.write.bind(out);
  out.write = ((chunk: Buffer, ...rest: never[]) => {
    const ok = write(chunk, ...rest);
    most = Math.max(most, out.writableLength);
    return ok;
  }) as typeof out.write;
  return { out, most: () => most, bytes: () => bytes };
}

const row = Buffer.alloc(1000, 'x');

describe('BatchedOutput', () => {
  it('writes rows in batches and waits for a slow destination, holding at most a batch there', async () => {
    const destination = slowDestination();
    const output = new BatchedOutput(destination.out);
    for (let i = 0; i < 4000; i++) await output.write(row); // 4 MB
    await output.flush();
    destination.out.end();
    await new Promise((resolve) => destination.out.on('finish', resolve));
    expect(destination.bytes()).toBe(4_000_000);
    expect(destination.most()).toBeLessThanOrEqual(256 * 1024 + row.length);
  });

  it('stops with OutputClosedError when the destination closes while it waits, instead of hanging', async () => {
    const destination = slowDestination();
    const output = new BatchedOutput(destination.out);
    setTimeout(() => destination.out.destroy(), 20);
    const error = await (async () => {
      for (let i = 0; i < 100_000; i++) await output.write(row);
    })().catch((e) => e);
    expect(error).toBeInstanceOf(OutputClosedError);
  });
});
