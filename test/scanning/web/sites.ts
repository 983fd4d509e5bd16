// Test web sites on 127.0.0.1: node http/https servers that count their connections.
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import type { TestCertificate } from '../tls/certs.js';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface Site {
  port: number;
  connections: number;
  paths: string[];
  close(): Promise<void>;
}

export async function startSite(
  handler: Handler,
  tls?: { cert: TestCertificate; options?: https.ServerOptions },
): Promise<Site> {
  const sockets = new Set<net.Socket>();
  const site: Site = { port: 0, connections: 0, paths: [], close: async () => undefined };
  const wrapped: Handler = (req, res) => {
    site.paths.push(req.url ?? '');
    handler(req, res);
  };
  const server = tls
    ? https.createServer({ key: tls.cert.key, cert: tls.cert.cert, ...tls.options }, wrapped)
    : http.createServer(wrapped);
  server.on(tls ? 'secureConnection' : 'connection', () => site.connections++);
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  server.on('clientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.port = (server.address() as net.AddressInfo).port;
  site.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return site;
}

/** Answers by path from a table; anything else is a plain 404. */
export function routes(
  table: Record<string, (res: http.ServerResponse) => void>,
  common: Record<string, string | string[]> = {},
): Handler {
  return (req, res) => {
    for (const [k, v] of Object.entries(common)) res.setHeader(k, v);
    const route = table[(req.url ?? '/').split('?')[0] ?? '/'];
    if (route) route(res);
    else {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      res.end('<html><body><h1>404 Not Found</h1></body></html>');
    }
  };
}

export const send =
  (status: number, body: string | Buffer, headers: Record<string, string | string[]> = {}) =>
  (res: http.ServerResponse) => {
    res.writeHead(status, { 'Content-Type': 'text/html', ...headers });
    res.end(body);
  };
