// One TCP connect probe: the three-way handshake through the operating system's own stack (no raw
// sockets). An accept means the port is open, a refusal (RST) that it is closed but the host is up,
// and silence (timeout, no route, host unreachable) tells nothing.

import net from 'node:net';

export type PortState = 'open' | 'closed' | 'silent';

export interface ProbeAnswer {
  state: PortState;
  /** The first line the service sent, when asked for (an SSH banner), or null. */
  banner: string | null;
}

export interface ProbeOptions {
  timeoutMs: number;
  /** Read at most one line after the accept, waiting this long for it; 0 to close at once. */
  bannerTimeoutMs: number;
  /** The run's open sockets: destroyed all at once when it aborts. */
  sockets: Set<net.Socket>;
}

/** Errors that say the machine itself ran out of something: the run fails rather than miss hosts. */
const LOCAL_FAILURES = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM', 'EADDRNOTAVAIL']);

const BANNER_BYTES = 256;

export function probePort(address: string, port: number, options: ProbeOptions): Promise<ProbeAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, noDelay: true });
    options.sockets.add(socket);
    let settled = false;
    let accepted = false;
    let received = '';
    const finish = (state: PortState, banner: string | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.sockets.delete(socket);
      // A reset rather than a FIN: no TIME_WAIT left on the node per open port, as nmap does.
      if (!socket.destroyed) {
        if (socket.readyState === 'open') socket.resetAndDestroy();
        else socket.destroy();
      }
      if (error) reject(error);
      else resolve({ state, banner });
    };
    let timer = setTimeout(() => finish('silent', null), options.timeoutMs);
    socket.once('connect', () => {
      accepted = true;
      if (options.bannerTimeoutMs <= 0) return finish('open', null);
      clearTimeout(timer);
      timer = setTimeout(() => finish('open', firstLine(received)), options.bannerTimeoutMs);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\n') || received.length >= BANNER_BYTES) finish('open', firstLine(received));
    });
    socket.once('end', () => finish('open', firstLine(received)));
    socket.once('close', () => {
      // Destroyed from outside (the run aborted): nothing more to learn.
      if (!settled) finish(accepted ? 'open' : 'silent', firstLine(received));
    });
    // `on`, not `once`: an error after the first must not go unheard (it would throw).
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') return finish('closed', null);
      if (error.code && LOCAL_FAILURES.has(error.code))
        return finish(
          'silent',
          null,
          new Error(`probing ${address}:${port} failed on this node: ${error.message}`),
        );
      // After an accept (a reset while reading the banner) the port was still open.
      if (accepted) return finish('open', firstLine(received));
      finish('silent', null);
    });
  });
}

/** The first line of what a service sent, trimmed and cut to printable text, or null. */
export function firstLine(text: string): string | null {
  const line = text
    .slice(0, BANNER_BYTES)
    .split(/\r?\n/)[0]!
    .replace(/[^\x20-\x7e]/g, '')
    .trim();
  return line === '' ? null : line;
}
