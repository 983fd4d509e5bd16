import http from 'node:http';
import net from 'node:net';
import { constants, createGzip } from 'node:zlib';

/**
 * Hostile files, made on the fly: the large ones are written
 * through gzip a slice at a time, so that a file of hundreds of megabytes costs its compressed
 * size in memory. Shared by the hostile tests and `npm run bench:hostile`.
 */

/** `parts` repeated `times` times each, in order, gzipped (level 9: runs of one byte shrink ~1000×). */
export async function gzipRepeated(parts: readonly { text: string; times: number }[]): Promise<Buffer> {
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const SLICE = 1024 * 1024;
  for (const { text, times } of parts) {
    const perSlice = Math.max(1, Math.floor(SLICE / Math.max(1, text.length)));
    const slice = Buffer.from(text.repeat(perSlice));
    let left = times;
    while (left > 0) {
      const n = Math.min(left, perSlice);
      const chunk = n === perSlice ? slice : Buffer.from(text.repeat(n));
      if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
      left -= n;
    }
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

/** A JSON array nested `depth` deep: `[[[…]]]`. */
export function deepJsonGzip(depth: number): Promise<Buffer> {
  return gzipRepeated([
    { text: '[', times: depth },
    { text: ']', times: depth },
  ]);
}

/** `[[[…]]]` `depth` deep, uncompressed. */
export function deepJson(depth: number): Buffer {
  return Buffer.from('['.repeat(depth) + ']'.repeat(depth));
}

/** One XML element with `count` distinct attributes, as a Nessus root. */
export function manyAttributesXml(count: number): Buffer {
  const parts: string[] = ['<?xml version="1.0"?>\n<NessusClientData_v2'];
  for (let i = 0; i < count; i += 1) parts.push(` a${i.toString(36)}="1"`);
  parts.push('><Report name="x"/></NessusClientData_v2>\n');
  return Buffer.from(parts.join(''));
}

/** The same, gzipped as it is generated (15 million attributes are ~180 MB of XML). */
export async function manyAttributesXmlGzip(count: number): Promise<Buffer> {
  const gzip = createGzip({ level: constants.Z_BEST_SPEED });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve) => gzip.on('end', resolve));
  gzip.write('<?xml version="1.0"?>\n<NessusClientData_v2');
  const BATCH = 50_000;
  for (let start = 0; start < count; start += BATCH) {
    let text = '';
    for (let i = start; i < Math.min(count, start + BATCH); i += 1) text += ` a${i.toString(36)}="1"`;
    if (!gzip.write(text)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end('><Report name="x"/></NessusClientData_v2>\n');
  await done;
  return Buffer.concat(out);
}

/** A Nessus report whose one tag holds a text node of `bytes` bytes, gzipped. */
export function hugeTextNodeXmlGzip(bytes: number): Promise<Buffer> {
  return gzipRepeated([
    {
      text: '<?xml version="1.0"?>\n<NessusClientData_v2><Report name="x"><ReportHost name="10.0.0.1">',
      times: 1,
    },
    { text: 'A', times: bytes },
    { text: '</ReportHost></Report></NessusClientData_v2>\n', times: 1 },
  ]);
}

/**
 * The peak resident memory of this process while `work` runs, above what it was before: sampled
 * every few milliseconds and compared with the kernel's own peak (maxRSS), the larger counts.
 */
export async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthBytes: number }> {
  const before = process.memoryUsage().rss;
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    const maxAfter = process.resourceUsage().maxRSS * 1024;
    const kernelGrowth = maxAfter > maxBefore ? maxAfter - before : 0;
    return { result, growthBytes: Math.max(peak - before, kernelGrowth) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Sends only the head of a request declaring `contentLength` bytes (and a few bytes of body) and
 * answers the status line the server gives without waiting for the rest: a server that waits for
 * the body never answers, and the caller's timeout says so.
 */
export function declareHugeBody(
  port: number,
  path: string,
  headers: Record<string, string>,
  contentLength: number,
): Promise<{ statusLine: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Content-Type: application/octet-stream',
          `Content-Length: ${contentLength}`,
          ...lines,
          '',
          '{"a":',
        ].join('\r\n'),
      );
    });
    let received = '';
    socket.on('data', (data) => {
      received += data.toString('utf8');
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = /content-length: (\d+)/i.exec(received.slice(0, end));
      if (length && received.length < end + 4 + Number(length[1])) return;
      socket.destroy();
      resolve({ statusLine: received.slice(0, received.indexOf('\r\n')), body: received.slice(end + 4) });
    });
    socket.on('error', reject);
  });
}

/**
 * POSTs `body` and then GETs `then` over one kept-alive connection (an agent of one socket), as
 * HTTP clients of CI pipelines do: both answers, or the caller's timeout when the second never
 * comes because the first left its connection unusable.
 */
export async function postThenGet(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  then: string,
): Promise<{ first: { status: number; connection?: string }; second: { status: number } }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, url: string, payload?: Buffer) =>
    new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: url,
          method,
          agent,
          headers: payload ? { ...headers, 'content-type': 'application/octet-stream' } : headers,
        },
        (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
          );
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  try {
    const first = await send('POST', path, body);
    const second = await send('GET', then);
    return { first, second };
  } finally {
    agent.destroy();
  }
}

/** A Nessus report whose elements nest `depth` deep: `<ReportItem><ReportItem>…`, never closed. */
export function deepXml(depth: number): Buffer {
  return Buffer.from(`<?xml version="1.0"?>\n<NessusClientData_v2>${'<ReportItem>'.repeat(depth)}`);
}

/**
 * POSTs `body` as many HTTP clients upload a file (Python's http.client and requests, among
 * others): the whole request first, in pieces of 64 KiB each written when the connection takes
 * it, and only then the answer. Resolves with the answer's status and body; rejects (EPIPE,
 * ECONNRESET) when the server cut the connection before the client could read its answer.
 */
export function uploadThenRead(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    // Nothing is read until everything is sent: what the server answered waits in the kernel.
    socket.pause();
    socket.on('error', reject);
    const head = [
      `POST ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/octet-stream',
      `Content-Length: ${body.length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    const write = (chunk: Buffer | string) =>
      new Promise<void>((done, fail) => socket.write(chunk, (error) => (error ? fail(error) : done())));
    const read = () => {
      let received = Buffer.alloc(0);
      socket.on('data', (data: Buffer) => {
        received = Buffer.concat([received, data]);
        const text = received.toString('utf8');
        const end = text.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = /content-length: (\d+)/i.exec(text.slice(0, end));
        if (!length || received.length < end + 4 + Number(length[1])) return;
        socket.destroy();
        resolve({ status: Number(text.split(' ')[1]), body: text.slice(end + 4) });
      });
      socket.on('end', () => reject(new Error(`the connection ended before the answer: ${received}`)));
      socket.resume();
    };
    socket.once('connect', async () => {
      try {
        await write(head);
        for (let offset = 0; offset < body.length; offset += 64 * 1024)
          await write(body.subarray(offset, offset + 64 * 1024));
        read();
      } catch (error) {
        reject(error);
      }
    });
  });
}
