// Servers for system scan tests, on 127.0.0.0/8 only: real redis-server processes and small node
// servers that speak a protocol's first words.

import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import { closedPort } from '../discovery/loopback.js';

export interface Running {
  port: number;
  /** Connections the server accepted. */
  accepted: number;
  close(): Promise<void>;
}

/** A node TCP server on `address` calling `onSocket` for each connection. */
export async function tcpServer(
  address: string,
  onSocket: (socket: net.Socket) => void,
  secure?: { key: string; cert: string },
): Promise<Running> {
  const sockets = new Set<net.Socket>();
  const running: Running = { port: 0, accepted: 0, close: async () => undefined };
  const handle = (socket: net.Socket) => {
    running.accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  };
  const server = secure
    ? tls.createServer({ ...secure, minVersion: 'TLSv1.2' }, handle)
    : net.createServer(handle);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port: 0 }, () => resolve());
  });
  running.port = (server.address() as net.AddressInfo).port;
  running.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return running;
}

/** A real redis-server on 127.0.0.1 (a free port), with a password when one is given. */
export async function redisServer(password?: string): Promise<Running> {
  const port = await closedPort('127.0.0.1');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
  ];
  if (password) args.push('--requirepass', password);
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' });
  await waitForPort('127.0.0.1', port);
  return {
    port,
    accepted: 0,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function waitForPort(address: string, port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: address, port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${address}:${port}`);
}

/** An SSH server's identification line and a KEXINIT packet offering the given algorithms. */
export function sshGreeting(banner: string, kex: string[], ciphers: string[], macs: string[]): Buffer {
  const list = (names: string[]) => {
    const text = Buffer.from(names.join(','), 'latin1');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(text.length);
    return Buffer.concat([length, text]);
  };
  const payload = Buffer.concat([
    Buffer.from([20]),
    Buffer.alloc(16, 7),
    list(kex),
    list(['ssh-rsa']),
    list(ciphers),
    list(ciphers),
    list(macs),
    list(macs),
    list(['none']),
    list(['none']),
    list([]),
    list([]),
    Buffer.from([0, 0, 0, 0, 0]),
  ]);
  const padding = 8 - ((payload.length + 5) % 8) + 4;
  const header = Buffer.alloc(5);
  header.writeUInt32BE(payload.length + padding + 1);
  header[4] = padding;
  return Buffer.concat([Buffer.from(`${banner}\r\n`, 'latin1'), header, payload, Buffer.alloc(padding)]);
}
