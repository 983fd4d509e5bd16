// One POST to a destination the guard checked (destination.ts): node:http gets a lookup that
// hands it the checked address, so nothing resolves again between the check and the connection
// (no DNS rebinding), while the URL's host stays in the Host header and the TLS server name, and
// certificates are verified. Redirects are never followed: the answer is the caller's to judge.
// The answer's body is read to at most a few KiB and dropped; headers are bounded by node:http.
import http from 'node:http';
import https from 'node:https';
import { isIPv6, type LookupFunction } from 'node:net';
import type { CheckedDestination } from './destination.js';

/** Bytes of an answer's body that are kept (for the delivery log's error); the rest is discarded. */
const MAX_BODY_BYTES = 4 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;

export interface PostAnswer {
  status: number;
  /** Lower-case header names; values joined when repeated. */
  headers: Record<string, string>;
  /** The start of the body, as text. */
  body: string;
}

/** The request ran out of time: the receiver accepted the connection but did not answer in time. */
export class PostTimeout extends Error {
  constructor(origin: string, ms: number) {
    super(`${origin} did not answer within ${ms} ms`);
    this.name = 'PostTimeout';
  }
}

export function postTo(
  destination: CheckedDestination,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; signal?: AbortSignal; userAgent: string },
): Promise<PostAnswer> {
  const { url, address } = destination;
  const secure = url.protocol === 'https:';
  const family = isIPv6(address) ? 6 : 4;
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
  const payload = Buffer.from(body, 'utf8');
  const requestOptions: https.RequestOptions = {
    method: 'POST',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: {
      ...headers,
      Host: url.host,
      'User-Agent': options.userAgent,
      'Content-Length': String(payload.length),
      Connection: 'close',
    },
    lookup,
    agent: false,
    maxHeaderSize: MAX_HEADER_BYTES,
    ...(url.username
      ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
      : {}),
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, answer?: PostAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(answer as PostAnswer);
    };
    const client = (secure ? https : http).request(requestOptions, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (): PostAnswer => ({
        status: res.statusCode ?? 0,
        headers: Object.fromEntries(
          Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
        ),
        body: Buffer.concat(chunks, size).toString('utf8'),
      });
      res.on('data', (chunk: Buffer) => {
        const room = MAX_BODY_BYTES - size;
        if (room <= 0) return;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(part);
        size += part.length;
      });
      res.on('end', () => finish(null, answer()));
      res.on('error', (error) => finish(error));
      res.on('close', () => finish(null, answer()));
    });
    const timer = setTimeout(() => {
      finish(new PostTimeout(url.origin, options.timeoutMs));
      client.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish(new Error(`The request to ${url.origin} was aborted`));
      client.destroy();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    client.on('error', (error) => finish(error));
    client.end(payload);
  });
}
