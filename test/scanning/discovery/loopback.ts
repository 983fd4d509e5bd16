// Test helpers on 127.0.0.0/8 only: listeners that count the connections they see, ports that
// refuse, ports that stay silent (a listener that never accepts and whose queue is full drops
// SYNs), and the kernel's count of our connects in flight (SYN_SENT in /proc/net/tcp).

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

export interface CountingListener {
  address: string;
  port: number;
  /** process.hrtime.bigint() of each accepted connection. */
  accepted: bigint[];
  /** Writes this line to every connection (an SSH banner). */
  close(): Promise<void>;
}

/** A listener on `address` (port 0: any free one) counting what it accepts. */
export async function countingListener(
  address: string,
  port = 0,
  greeting?: string,
): Promise<CountingListener> {
  const accepted: bigint[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    accepted.push(process.hrtime.bigint());
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (greeting) socket.write(greeting);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port }, () => resolve());
  });
  return {
    address,
    port: (server.address() as net.AddressInfo).port,
    accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on `address` that nothing listens on (found free, then released): connects are refused. */
export async function closedPort(address: string): Promise<number> {
  const listener = await countingListener(address);
  await listener.close();
  return listener.port;
}

export interface SilentPorts {
  /** address → its silent ports (the same numbers on every address). */
  ports: number[];
  close(): void;
}

/**
 * Ports on each address that drop SYNs: a listener with a backlog of 0 that never accepts, its one
 * queue place taken by its own connection. Linux drops further SYNs to a full queue, so a connect
 * stays in SYN_SENT until it times out, like a port behind a drop rule. Python does it: Node's
 * listeners always accept.
 */
export async function silentPorts(addresses: string[], count: number): Promise<SilentPorts> {
  const script = `
import socket, sys, time
addresses = sys.argv[1].split(',')
count = int(sys.argv[2])
keep = []
ports = []
for i in range(count):
    while True:
        first = socket.socket(); first.bind((addresses[0], 0)); port = first.getsockname()[1]
        socks = [first]
        try:
            for a in addresses[1:]:
                s = socket.socket(); s.bind((a, port)); socks.append(s)
            break
        except OSError:
            for s in socks: s.close()
    for s in socks:
        s.listen(0)
        c = socket.create_connection(s.getsockname())
        keep.extend([s, c])
    ports.append(port)
print(','.join(map(str, ports)), flush=True)
sys.stdin.read()
`;
  const child: ChildProcess = spawn('python3', ['-c', script, addresses.join(','), String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`python3 exited with ${code}`)));
  });
  return { ports: line.split(',').map(Number), close: () => child.kill() };
}

const SYN_SENT = '02';

/** Our connects in flight to each of `addresses` right now, as the kernel counts them. */
export function synSentTo(addresses: readonly string[]): Map<string, number> {
  const wanted = new Map(addresses.map((a) => [hexAddress(a), a]));
  const counts = new Map<string, number>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] !== SYN_SENT) continue;
    const remote = wanted.get(fields[2]!.split(':')[0]!);
    if (remote) counts.set(remote, (counts.get(remote) ?? 0) + 1);
  }
  return counts;
}

/** /proc/net/tcp writes an IPv4 address as the hex of its bytes in host (little-endian) order. */
function hexAddress(address: string): string {
  return address
    .split('.')
    .map((b) => Number(b).toString(16).padStart(2, '0').toUpperCase())
    .reverse()
    .join('');
}

export const isRoot = process.getuid?.() === 0;
