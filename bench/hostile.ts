/**
 * npm run bench:hostile — posts each hostile file of issue 12 (items 13 and 14) to a Rampart app
 * listening on 127.0.0.1 (in this process, on the embedded database), over real HTTP, and prints
 * for each: the answer, the growth of the process's resident memory at its peak, the event-loop
 * delay (p99 and max, perf_hooks.monitorEventLoopDelay), whether GET /status kept answering
 * meanwhile (probed every 50 ms), and what was left in the upload folder.
 * Goals: memory growth ≤ 200 MB and event-loop delay ≤ 100 ms on every file.
 *
 * The compressed files are made before their measurement starts; uncompressed bodies stream from
 * one reused buffer, so the client adds almost nothing to what is measured.
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { compose, httpApp } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import { openEmbedded } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import {
  declareHugeBody,
  deepJson,
  deepJsonGzip,
  hugeTextNodeXmlGzip,
  manyAttributesXml,
  manyAttributesXmlGzip,
} from '../test/helpers/hostile-files.js';

const MB = 1024 * 1024;

interface Case {
  name: string;
  path: '/api/latest/imports' | '/api/latest/intel/loads';
  /** Made before the measurement. */
  body?: () => Promise<Buffer> | Buffer;
  /** Streamed during it: `times` copies of `chunk` between `head` and `tail`. */
  stream?: { head: string; chunk: Buffer; times: number; tail: string };
  /** Only the head of a request declaring this many bytes. */
  declared?: number;
}

const CASES: Case[] = [
  {
    name: 'import: gzipped JSON array 40,000,000 deep',
    path: '/api/latest/imports',
    body: () => deepJsonGzip(40_000_000),
  },
  {
    name: 'import: gzipped XML element with 15,000,000 attributes',
    path: '/api/latest/imports',
    body: () => manyAttributesXmlGzip(15_000_000),
  },
  {
    name: 'import: XML element with 1,000,000 attributes',
    path: '/api/latest/imports',
    body: () => manyAttributesXml(1_000_000),
  },
  {
    name: 'import: XML text node of 200 MB',
    path: '/api/latest/imports',
    stream: {
      head: '<?xml version="1.0"?>\n<NessusClientData_v2><Report name="x"><ReportHost name="10.0.0.1">',
      chunk: Buffer.alloc(MB, 'A'),
      times: 200,
      tail: '</ReportHost></Report></NessusClientData_v2>\n',
    },
  },
  {
    name: 'import: gzipped XML text node of 600 MB',
    path: '/api/latest/imports',
    body: () => hugeTextNodeXmlGzip(600 * MB),
  },
  {
    name: 'import: JSON arrays 1,000,000 deep',
    path: '/api/latest/imports',
    body: () => deepJson(1_000_000),
  },
  {
    name: 'intel load: gzipped JSON array 40,000,000 deep',
    path: '/api/latest/intel/loads',
    body: () => deepJsonGzip(40_000_000),
  },
  {
    name: 'intel load: JSON arrays 1,000,000 deep',
    path: '/api/latest/intel/loads',
    body: () => deepJson(1_000_000),
  },
  {
    name: 'intel load: declared Content-Length of 3 GB',
    path: '/api/latest/intel/loads',
    declared: 3 * 1024 ** 3,
  },
  { name: 'import: declared Content-Length of 3 GB', path: '/api/latest/imports', declared: 3 * 1024 ** 3 },
];

const uploads = mkdtempSync(join(tmpdir(), 'rampart-bench-hostile-'));
const database = await openEmbedded('memory://', 'bench');
await migrateToLatest(database.db);
const config = loadConfig({
  RAMPART_THROTTLE_LIMIT: '1000000000',
  RAMPART_IMPORT_DIR: uploads,
  RAMPART_INTEL_KB: 'off',
  RAMPART_INTEL_SYNC: 'off',
  RAMPART_LOG_LEVEL: 'silent',
});
// As `rampart serve` runs: the services, the HTTP app and the background work (imports are jobs).
const composition = await compose(config, { database, authCacheSeconds: config.authCacheSeconds });
const { services } = composition;
const { app } = await httpApp(composition, { logger: false });
await composition.startBackground({ log: app.log });
const { organization } = await services.organizations.ensureFirst();
const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
const admin = await services.users.create(ctx, { email: 'bench@example.com', role: 'Admin' });
const { key, secretKey } = await services.apiKeys.create(ctx, { userId: admin.id, name: 'bench' });
const headers = { ApiAccessKey: key.accessKey, ApiSecretKey: secretKey };
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;

/** POSTs a body (a buffer, or chunks as they are written) and answers the status and body. */
function post(path: string, body: Buffer | Case['stream']): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
      },
      (response) => {
        let text = '';
        response.on('data', (data: Buffer) => {
          text += data.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    // A connection the server closed is reported as such (status 0), not thrown.
    request.on('error', (error) => resolve({ status: 0, text: `connection: ${error.message}` }));
    if (Buffer.isBuffer(body)) {
      request.end(body);
      return;
    }
    const source = body!;
    let left = source.times;
    // Stops writing once the server has answered (it refused the file).
    let answered = false;
    request.on('response', () => {
      answered = true;
    });
    request.write(source.head);
    const more = () => {
      while (left > 0 && !answered) {
        left -= 1;
        if (!request.write(source.chunk)) return void request.once('drain', more);
      }
      request.end(answered ? undefined : source.tail);
    };
    more();
  });
}

/** GET /status every 50 ms while `work` runs: how many answered, and the slowest answer. */
async function probing<T>(work: () => Promise<T>) {
  let stop = false;
  const latencies: number[] = [];
  let failures = 0;
  const loop = (async () => {
    while (!stop) {
      const started = performance.now();
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/latest/status`);
        await res.arrayBuffer();
        if (res.ok) latencies.push(performance.now() - started);
        else failures += 1;
      } catch {
        failures += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { result: await work(), latencies, failures: () => failures };
  } finally {
    stop = true;
    await loop;
  }
}

const rows: string[] = [];
for (const c of CASES) {
  const body = c.body ? await c.body() : undefined;
  const size = body
    ? `${(body.length / MB).toFixed(body.length < MB ? 2 : 1)} MB`
    : c.stream
      ? '200 MB'
      : '—';
  const delay = monitorEventLoopDelay({ resolution: 5 });
  const before = process.memoryUsage().rss;
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  delay.enable();
  const started = performance.now();
  const probe = await probing(async () => {
    if (c.declared) {
      const answer = await declareHugeBody(port, c.path, headers, c.declared);
      return { status: Number(answer.statusLine.split(' ')[1]), text: answer.body };
    }
    return post(c.path, body ?? c.stream);
  });
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const maxRssAfter = process.resourceUsage().maxRSS * 1024;
  const growth = Math.max(peak - before, maxRssAfter > maxRssBefore ? maxRssAfter - before : 0);
  const { status, text } = probe.result;
  let detail = text.slice(0, 160);
  try {
    detail = JSON.parse(text).detail ?? detail;
  } catch {}
  const left = readdirSync(uploads).length;
  const slowest = probe.latencies.length > 0 ? Math.max(...probe.latencies) : Number.NaN;
  const row = [
    c.name,
    size,
    `${status} ${detail}`,
    `${(growth / MB).toFixed(0)} MB`,
    `${(delay.percentile(99) / 1e6).toFixed(0)} / ${(delay.max / 1e6).toFixed(0)} ms`,
    `${probe.latencies.length} of ${probe.latencies.length + probe.failures()}, slowest ${slowest.toFixed(0)} ms`,
    `${seconds.toFixed(2)} s`,
    String(left),
  ];
  rows.push(`| ${row.join(' | ')} |`);
  console.log(row.join('  ·  '));
}

console.log(
  '\n| file | sent | answer | memory growth (peak) | event-loop delay p99 / max | GET /status meanwhile | time | files left |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);

await app.close();
await composition.close();
await database.close();
rmSync(uploads, { recursive: true, force: true });
