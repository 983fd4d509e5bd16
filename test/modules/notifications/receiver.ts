import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with a request: answer with a status (and headers), hang, or drop the connection. */
export type Behaviour =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { hang: true }
  | { drop: true };

export interface Receiver {
  url: string;
  received: Received[];
  /** Changes what the next requests get. */
  behave(next: (request: Received, index: number) => Behaviour): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (port 0), as a webhook consumer would run one. */
export async function startReceiver(
  behaviour: (request: Received, index: number) => Behaviour = () => ({ status: 200 }),
): Promise<Receiver> {
  let behave = behaviour;
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const what = behave(request, received.length - 1);
      if ('hang' in what) {
        hanging.add(res);
        return;
      }
      if ('drop' in what) {
        req.socket.destroy();
        return;
      }
      res.writeHead(what.status, what.headers ?? {});
      res.end(what.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    behave: (next) => {
      behave = next;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
