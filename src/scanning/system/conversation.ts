// One conversation with a service: a TCP (or TLS) connection whose answers are read with a cap as
// they stream, and whose every wait ends at a deadline or when the run aborts. Nothing read past
// the cap is kept.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';

export interface ConversationOptions {
  /** Monotonic milliseconds: the conversation ends when `deadline` passes. */
  monotonic: () => number;
  deadline: number;
  signal: AbortSignal;
  /** TLS inside the connection, with this SNI name (null: none). */
  tls?: { servername: string | null } | null;
  /** Bytes kept of everything the service sends. */
  maxBytes: number;
  /** How long the connect (and TLS handshake) may take, in real milliseconds. */
  connectTimeoutMs: number;
}

export class Conversation {
  private received = Buffer.alloc(0);
  private closed = false;
  private wake: (() => void) | null = null;
  private readonly onAbort = () => this.close();

  private constructor(
    private readonly socket: net.Socket,
    private readonly options: ConversationOptions,
  ) {
    socket.on('data', (chunk: Buffer) => {
      const room = options.maxBytes - this.received.length;
      if (room > 0) this.received = Buffer.concat([this.received, chunk.subarray(0, room)]);
      this.wake?.();
    });
    const end = () => {
      this.closed = true;
      options.signal.removeEventListener('abort', this.onAbort);
      this.wake?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
    options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Connects (and shakes hands for TLS) before the deadline; null when it cannot. */
  static open(address: string, port: number, options: ConversationOptions): Promise<Conversation | null> {
    return new Promise((resolve) => {
      const left = options.deadline - options.monotonic();
      if (left <= 0 || options.signal.aborted) return resolve(null);
      const socket = options.tls
        ? tls.connect({
            host: address,
            port,
            rejectUnauthorized: false,
            ...(options.tls.servername && net.isIP(options.tls.servername) === 0
              ? { servername: options.tls.servername }
              : {}),
            ciphers: 'DEFAULT:@SECLEVEL=0',
            minVersion: 'TLSv1',
          })
        : net.connect({ host: address, port, noDelay: true });
      let settled = false;
      const finish = (conversation: Conversation | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        if (!conversation) socket.destroy();
        resolve(conversation);
      };
      const onAbort = () => finish(null);
      const timer = setTimeout(() => finish(null), Math.min(left, options.connectTimeoutMs));
      options.signal.addEventListener('abort', onAbort, { once: true });
      socket.once(options.tls ? 'secureConnect' : 'connect', () => finish(new Conversation(socket, options)));
      socket.once('error', () => finish(null));
      socket.once('close', () => finish(null));
    });
  }

  /** Everything received so far (capped). */
  get bytes(): Buffer {
    return this.received;
  }

  /** The conversation ran out of time. */
  get expired(): boolean {
    return this.options.monotonic() >= this.options.deadline;
  }

  write(bytes: Buffer): void {
    if (!this.closed) this.socket.write(bytes);
  }

  /**
   * Waits until `done(received since from)` holds, the cap is reached, the service closes, `waitMs`
   * real milliseconds pass or the deadline (on the monotonic clock) comes; answers what arrived
   * since `from`.
   */
  async read(from: number, done: (bytes: Buffer) => boolean, waitMs: number): Promise<Buffer> {
    const until = performance.now() + waitMs;
    for (;;) {
      const fresh = this.received.subarray(from);
      if (done(fresh) || this.closed || this.received.length >= this.options.maxBytes) return fresh;
      const left = until - performance.now();
      if (left <= 0 || this.expired || this.options.signal.aborted) return fresh;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, Math.min(left, 250));
        this.wake = finish;
        function finish() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.wake = null;
    }
  }

  /** Sends `request` and reads its answer as read() does. */
  async ask(request: Buffer, done: (bytes: Buffer) => boolean, waitMs: number): Promise<Buffer> {
    const from = this.received.length;
    this.write(request);
    return this.read(from, done, waitMs);
  }

  close(): void {
    this.closed = true;
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.socket.destroy();
  }
}
