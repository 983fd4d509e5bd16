// One HTTP request of a web scan: always to the address the policy checked (a custom lookup hands
// it to node:http, so nothing resolves again behind the check), with the URL's host in the Host
// header and the TLS server name, headers and body read with caps as they stream.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIPv6 } from 'node:net';

/** Bytes of a body that are kept; the rest is never read. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Bytes of all response headers together (node:http refuses more). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Header lines kept for the evidence and the checks. */
const MAX_HEADER_LINES = 100;

export interface HttpRequest {
  url: URL;
  /** The checked address every byte goes to. */
  address: string;
  method: 'GET' | 'HEAD';
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HttpAnswer {
  requestLine: string;
  host: string;
  status: number;
  statusText: string;
  httpVersion: string;
  /** Header lines as received (name in the case sent), at most MAX_HEADER_LINES. */
  headerLines: Array<[string, string]>;
  body: Buffer;
  truncated: boolean;
}

/** Thrown when a request runs out of time: the caller tells it from other failures. */
export class RequestTimeout extends Error {
  constructor(url: URL, ms: number) {
    super(`${url.origin} did not answer within ${ms} ms`);
    this.name = 'RequestTimeout';
  }
}

/** The value of one header (the first, or all joined with ", "), by lower-case name; null when absent. */
export function header(answer: HttpAnswer, name: string): string | null {
  const values = answer.headerLines.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  return values.length === 0 ? null : values.join(', ');
}

/** Every value of a header that repeats (Set-Cookie). */
export function headers(answer: HttpAnswer, name: string): string[] {
  return answer.headerLines.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
}

export function request(req: HttpRequest): Promise<HttpAnswer> {
  const { url, address } = req;
  const secure = url.protocol === 'https:';
  const family = isIPv6(address) ? 6 : 4;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
  const path = `${url.pathname}${url.search}`;
  const host = url.host;
  const options: https.RequestOptions = {
    method: req.method,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path,
    headers: { Host: host, 'User-Agent': 'Rampart-WebScan/1', Accept: '*/*', Connection: 'close' },
    lookup,
    agent: false,
    maxHeaderSize: MAX_HEADER_BYTES,
    signal: req.signal,
    ...(secure
      ? { rejectUnauthorized: false, ciphers: 'DEFAULT:@SECLEVEL=0', minVersion: 'TLSv1' as const }
      : {}),
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(answer as HttpAnswer);
    };
    const client = (secure ? https : http).request(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const answer = (): HttpAnswer => ({
        requestLine: `${req.method} ${path} HTTP/1.1`,
        host,
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        httpVersion: res.httpVersion,
        headerLines: pairs(res.rawHeaders),
        body: Buffer.concat(chunks, size),
        truncated,
      });
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = MAX_BODY_BYTES - size;
        if (chunk.length >= room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          // Enough seen: the rest of the body is never read.
          finish(null, answer());
          res.destroy();
          client.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => finish(null, answer()));
      res.on('error', (error) => finish(error));
      res.on('close', () => finish(null, answer()));
    });
    const timer = setTimeout(() => {
      finish(new RequestTimeout(url, req.timeoutMs));
      client.destroy();
    }, req.timeoutMs);
    client.on('error', (error) => finish(error));
    client.end();
  });
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length && out.length < MAX_HEADER_LINES; i += 2)
    out.push([raw[i] as string, (raw[i + 1] as string).slice(0, 4096)]);
  return out;
}
