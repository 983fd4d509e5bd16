import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { drain } from '../../../src/modules/imports/upload.js';

/** How a refused upload's rest is read and thrown away: to its end, within its byte and time bounds. */
describe('drain', () => {
  it('reads a body to its end', async () => {
    const body = new PassThrough();
    const drained = drain(body, 1024, 5_000);
    body.write(Buffer.alloc(600));
    body.end(Buffer.alloc(400));
    await drained;
    expect(body.readableEnded).toBe(true);
  });

  it('stops past the byte bound and leaves the rest unread', async () => {
    const body = new PassThrough();
    const drained = drain(body, 1024, 5_000);
    body.write(Buffer.alloc(1000));
    body.write(Buffer.alloc(1000));
    await drained;
    body.end(Buffer.alloc(10));
    expect(body.readableEnded).toBe(false);
    expect(body.isPaused()).toBe(true);
  });

  it('stops at the time bound when the client sends no more', async () => {
    const body = new PassThrough();
    body.write(Buffer.alloc(10));
    const started = performance.now();
    await drain(body, 1024, 50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(body.readableEnded).toBe(false);
  });

  it('stops when the body fails (the client went away)', async () => {
    const body = new PassThrough();
    const drained = drain(body, 1024, 5_000);
    body.destroy(new Error('aborted'));
    await drained;
    expect(body.destroyed).toBe(true);
  });
});
