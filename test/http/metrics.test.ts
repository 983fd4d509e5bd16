import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenMetrics } from '../../src/http/metrics.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { authHeaders, buildTestApp, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import {
  type Family,
  histogramCount,
  metricValue,
  parseMetrics as parse,
  seriesOf,
} from '../helpers/prometheus.js';
import { apiCall, enrolNode } from '../helpers/scan-nodes.js';
import { nessusReport } from '../modules/imports/nessus-report.js';

const TOKEN = `metrics-${randomBytes(20).toString('hex')}`;

/** The metrics port, listening (listenMetrics answers undefined only without a port). */
async function metricsPort(...args: Parameters<typeof listenMetrics>): Promise<FastifyInstance> {
  const server = await listenMetrics(...args);
  if (!server) throw new Error('no metrics port');
  return server;
}

/** Waits until `check` holds, for what a background job finishes after the request that began it. */
async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(DB_KINDS)('GET /metrics [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;

  const scrapeRaw = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
    t.app.inject({ method: 'GET', url: '/metrics', headers });
  const scrape = async (): Promise<Family[]> => {
    const res = await scrapeRaw();
    expect(res.statusCode, res.body).toBe(200);
    return parse(res.body);
  };
  const seconds = (s: number) => {
    t.clock.now = new Date(t.clock.now.getTime() + s * 1000);
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_METRICS_TOKEN: TOKEN, RAMPART_LOCAL_SCAN_NODE: 'false' },
    });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers the Prometheus text format, every family typed and described', async () => {
    const res = await scrapeRaw();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const families = parse(res.body);
    for (const name of [
      'rampart_build_info',
      'rampart_database_up',
      'rampart_db_pool_connections',
      'rampart_events_outbox_backlog',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
    ])
      expect(
        families.find((f) => f.name === name),
        name,
      ).toBeDefined();
    for (const f of families.filter((f) => f.name.startsWith('rampart_'))) {
      expect(f.help, f.name).not.toBe('');
      expect(['COUNTER', 'GAUGE', 'HISTOGRAM'], f.name).toContain(f.type);
    }
    expect(metricValue(families, 'rampart_database_up')).toBe(1);
    // The pool's size is RAMPART_DB_POOL_SIZE's, or the test database's own (5 on PostgreSQL).
    expect(metricValue(families, 'rampart_db_pool_connections', { state: 'max' })).toBe(
      kind === 'postgres' ? 5 : 10,
    );
    expect(metricValue(families, 'rampart_db_pool_acquires_total')).toBeGreaterThan(0);
    expect(metricValue(families, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts requests by route template and status, with latency histograms; unknown paths as one label', async () => {
    const before = await scrape();
    const id = '0193a5c4-7f10-7c3e-9d41-00000000abcd';
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/latest/findings/${id}`,
        headers: authHeaders(t.admin),
      });
      expect(res.statusCode).toBe(404);
    }
    const ok = await t.app.inject({ method: 'GET', url: '/api/integration/status' });
    expect(ok.statusCode).toBe(200);
    await t.app.inject({ method: 'GET', url: '/no/such/path/42' });
    await t.app.inject({ method: 'GET', url: '/api/latest/nothing-here/42' });
    const after = await scrape();

    const findingRoute = { method: 'GET', route: '/api/latest/findings/:Id' };
    const delta = (name: string, labels: Record<string, string>) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(delta('rampart_http_requests_total', { ...findingRoute, status: '404' })).toBe(3);
    expect(
      delta('rampart_http_requests_total', {
        method: 'GET',
        route: '/api/integration/status',
        status: '200',
      }),
    ).toBe(1);
    expect(
      histogramCount(after, 'rampart_http_request_duration_seconds', findingRoute) -
        histogramCount(before, 'rampart_http_request_duration_seconds', findingRoute),
    ).toBe(3);
    const histogram = seriesOf(after, 'rampart_http_request_duration_seconds', findingRoute);
    expect(histogram?.buckets?.['+Inf']).toBe(histogram?.count);
    expect(histogram?.sum).toBeGreaterThan(0);
    expect(delta('rampart_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(
      2,
    );

    // Labels are bounded: no raw path, id, organisation or key reaches them.
    const labels = after.flatMap((f) => f.series.flatMap((m) => Object.values(m.labels)));
    for (const secret of [
      id,
      '/no/such/path/42',
      'nothing-here',
      t.org.id,
      t.admin.accessKey,
      t.admin.userId,
    ])
      expect(
        labels.some((l) => l.includes(secret)),
        secret,
      ).toBe(false);
    // The scrapes themselves are counted too, under their template.
    expect(
      metricValue(after, 'rampart_http_requests_total', { route: '/metrics', status: '200' }),
    ).toBeGreaterThan(0);
  });

  it('counts an import by format and the findings it made, and the job that ran it, as they happen', async () => {
    const before = await scrape();
    const report = nessusReport([
      {
        ip: '10.77.0.1',
        items: [
          { plugin: '158900', name: 'Apache Path Traversal', cve: ['CVE-2021-42013'], severity: 4 },
          { plugin: '104743', name: 'TLS Version 1.0 Protocol Detection', severity: 2 },
        ],
      },
      {
        ip: '10.77.0.2',
        items: [{ plugin: '104743', name: 'TLS Version 1.0 Protocol Detection', severity: 2 }],
      },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/xml' },
      payload: report,
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const importJob = { kind: 'import', outcome: 'completed' };
    let after = before;
    await until(async () => {
      after = await scrape();
      return (
        metricValue(after, 'rampart_job_runs_total', importJob) >
        metricValue(before, 'rampart_job_runs_total', importJob)
      );
    }, 'the import job to be counted');
    const delta = (name: string, labels: Record<string, string>) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(delta('rampart_imports_total', { format: 'nessus', state: 'completed' })).toBe(1);
    expect(delta('rampart_import_findings_total', { change: 'new' })).toBe(3);
    expect(delta('rampart_job_runs_total', importJob)).toBe(1);
    expect(
      histogramCount(after, 'rampart_job_run_duration_seconds', importJob) -
        histogramCount(before, 'rampart_job_run_duration_seconds', importJob),
    ).toBe(1);
    expect(
      delta('rampart_http_requests_total', { method: 'POST', route: '/api/latest/imports', status: '202' }),
    ).toBe(1);

    // The same report again: nothing new, three unchanged.
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/xml' },
      payload: report,
    });
    await t.services.imports.settled(again.json().Id);
    const third = await scrape();
    expect(metricValue(third, 'rampart_import_findings_total', { change: 'new' })).toBe(
      metricValue(after, 'rampart_import_findings_total', { change: 'new' }),
    );
    expect(
      metricValue(third, 'rampart_import_findings_total', { change: 'unchanged' }) -
        metricValue(after, 'rampart_import_findings_total', { change: 'unchanged' }),
    ).toBe(3);

    // A report that cannot be read: a failed import.
    const broken = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?Format=nessus',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/xml' },
      payload: '<?xml version="1.0"?><NessusClientData_v2><Report name="x"><ReportHost name="10.0.0.1">',
    });
    expect(broken.statusCode, broken.body).toBe(202);
    await t.services.imports.settled(broken.json().Id);
    const fourth = await scrape();
    expect(
      metricValue(fourth, 'rampart_imports_total', { format: 'nessus', state: 'failed' }) -
        metricValue(third, 'rampart_imports_total', { format: 'nessus', state: 'failed' }),
    ).toBe(1);
  });

  it('reads the jobs waiting by kind and state, and the age of the oldest due one, when scraped', async () => {
    // A kind no worker handles stays Queued: due 90 s ago by the app clock, and one not yet due.
    await t.services.jobs.enqueueUnchecked('metrics-probe', null, {
      runAt: new Date(t.clock.now.getTime() - 90_000),
    });
    await t.services.jobs.enqueueUnchecked('metrics-probe', null, {
      runAt: new Date(t.clock.now.getTime() + 3_600_000),
    });
    let families = await scrape();
    expect(metricValue(families, 'rampart_jobs', { kind: 'metrics-probe', state: 'Queued' })).toBe(2);
    expect(metricValue(families, 'rampart_job_queue_oldest_age_seconds', { kind: 'metrics-probe' })).toBe(90);
    seconds(30);
    families = await scrape();
    expect(metricValue(families, 'rampart_job_queue_oldest_age_seconds', { kind: 'metrics-probe' })).toBe(
      120,
    );
    // A kind with nothing due has no age at all.
    expect(seriesOf(families, 'rampart_job_queue_oldest_age_seconds', { kind: 'import' })).toBeUndefined();
  });

  it('reads scan runs by state, their queue age, and the scan nodes and their heartbeats', async () => {
    const { nodeKey } = await enrolNode(t, t.admin);
    let families = await scrape();
    const remote = { local: 'false' };
    expect(metricValue(families, 'rampart_scan_nodes', { ...remote, state: 'offline' })).toBe(1);
    expect(seriesOf(families, 'rampart_scan_node_heartbeat_age_seconds', remote)).toBeUndefined();

    const beat = await apiCall(t, 'POST', '/scannodes/heartbeat', { nodeKey, body: {} });
    expect(beat.statusCode, beat.body).toBe(200);
    const run = await t.services.scanRuns.queue(ctx, {
      kind: 'Discovery',
      sourceId: '0193a5c4-7f10-7c3e-9d41-0000000000aa',
      sourceName: 'Office',
      nodeId: null,
      spec: { targets: [{ range: '127.0.0.1' }] },
    });
    seconds(20);
    families = await scrape();
    expect(metricValue(families, 'rampart_scan_nodes', { ...remote, state: 'online' })).toBe(1);
    expect(metricValue(families, 'rampart_scan_nodes', { ...remote, state: 'offline' })).toBe(0);
    expect(
      metricValue(families, 'rampart_scan_node_heartbeat_age_seconds', { ...remote, which: 'newest' }),
    ).toBe(20);
    expect(metricValue(families, 'rampart_scan_runs', { kind: 'Discovery', state: 'Queued' })).toBe(1);
    expect(metricValue(families, 'rampart_scan_run_queue_oldest_age_seconds', { kind: 'Discovery' })).toBe(
      20,
    );

    const claimed = await apiCall(t, 'POST', '/scanruns/claim', { nodeKey, body: {} });
    expect(claimed.json().Id).toBe(run.id);
    const finished = await apiCall(
      t,
      'POST',
      `/scanruns/${run.id}/attempts/${claimed.json().Attempt}/finish`,
      {
        nodeKey,
        body: { State: 'Completed' },
      },
    );
    expect(finished.statusCode, finished.body).toBe(200);
    seconds(60);
    families = await scrape();
    expect(metricValue(families, 'rampart_scan_runs', { kind: 'Discovery', state: 'Queued' })).toBe(0);
    expect(metricValue(families, 'rampart_scan_runs', { kind: 'Discovery', state: 'Completed' })).toBe(1);
    expect(
      seriesOf(families, 'rampart_scan_run_queue_oldest_age_seconds', { kind: 'Discovery' }),
    ).toBeUndefined();
    // 60 s after the last heartbeat (the claim's and finish's count too): Offline.
    expect(metricValue(families, 'rampart_scan_nodes', { ...remote, state: 'offline' })).toBe(1);
    expect(
      metricValue(families, 'rampart_scan_node_heartbeat_age_seconds', { ...remote, which: 'oldest' }),
    ).toBeGreaterThanOrEqual(60);
  });

  it('reads the events outbox backlog and the age of the oldest event waiting', async () => {
    // The background dispatches the outbox every 2 s: its backlog drains to nothing.
    await until(
      async () => metricValue(await scrape(), 'rampart_events_outbox_backlog') === 0,
      'the outbox to be dispatched',
    );
    const families = await scrape();
    expect(metricValue(families, 'rampart_events_outbox_oldest_age_seconds')).toBe(0);
  });

  it('counts the requests the throttle refuses', async () => {
    const limited = await buildTestApp(tdb.database, {
      env: { RAMPART_METRICS_TOKEN: TOKEN, RAMPART_THROTTLE_LIMIT: '2' },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await limited.app.inject({ method: 'GET', url: '/api/latest/status', remoteAddress: '127.0.3.3' }))
            .statusCode,
        );
      expect(statuses).toEqual([200, 200, 429, 429]);
      const res = await limited.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
        remoteAddress: '127.0.3.3',
      });
      // Neither throttled itself nor counted against the client's budget.
      expect(res.statusCode).toBe(200);
      const families = parse(res.body);
      expect(metricValue(families, 'rampart_http_throttled_total', { budget: 'global' })).toBe(2);
      expect(
        metricValue(families, 'rampart_http_requests_total', { route: '/api/latest/status', status: '429' }),
      ).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('answers 401 without the right bearer token, and the token only in constant time', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: 'Bearer ' },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
      { apiaccesskey: t.admin.accessKey, apisecretkey: t.admin.secretKey },
    ];
    for (const headers of attempts) {
      const res = await scrapeRaw(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.json()).toMatchObject({ status: 401, instance: '/metrics' });
      expect(res.json().detail).toContain('RAMPART_METRICS_TOKEN');
      expect(res.body).not.toContain(TOKEN);
      expect(res.body).not.toContain('rampart_');
    }
    expect((await scrapeRaw({ authorization: `bearer  ${TOKEN}` })).statusCode).toBe(200);
  });

  it('is a 404 on the main port when no token is set, as for any unknown path', async () => {
    const plain = await buildTestApp(tdb.database);
    try {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
        const res = await plain.app.inject({ method: 'GET', url: '/metrics', headers });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({
          type: 'https://rampart.dev/problems/not-found',
          instance: '/metrics',
        });
      }
    } finally {
      await plain.close();
    }
  });

  it('serves the metrics on a port of their own, with the token when one is set, and nothing else there', async () => {
    const portOnly = await buildTestApp(tdb.database, { env: { RAMPART_METRICS_PORT: '9' } });
    const server = await metricsPort(portOnly.services.metrics, {
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      metricsToken: undefined,
    });
    try {
      const address = server.server.address() as net.AddressInfo;
      expect(address.address).toBe('127.0.0.1');
      const base = `http://127.0.0.1:${address.port}`;
      // The main port's requests are counted; /metrics is not served there.
      expect((await portOnly.app.inject({ method: 'GET', url: '/api/latest/status' })).statusCode).toBe(200);
      expect((await portOnly.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const families = parse(await res.text());
      expect(
        metricValue(families, 'rampart_http_requests_total', { route: '/api/latest/status', status: '200' }),
      ).toBe(1);
      expect(
        metricValue(families, 'rampart_http_requests_total', { route: 'unmatched', status: '404' }),
      ).toBe(1);
      const other = await fetch(`${base}/api/latest/status`);
      expect(other.status).toBe(404);
      expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await other.json()).detail).toBe('This port serves GET /metrics only.');
    } finally {
      await server.close();
      await portOnly.close();
    }

    // With a token too, the metrics port asks for it.
    const both = await metricsPort(t.services.metrics, {
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      metricsToken: TOKEN,
    });
    try {
      const base = `http://127.0.0.1:${(both.server.address() as net.AddressInfo).port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
        200,
      );
      // A port in use fails the start, naming the variable.
      const taken = (both.server.address() as net.AddressInfo).port;
      await expect(
        listenMetrics(t.services.metrics, {
          metricsPort: taken,
          metricsHost: '127.0.0.1',
          metricsToken: TOKEN,
        }),
      ).rejects.toThrow(`RAMPART_METRICS_PORT ${taken} on 127.0.0.1 is in use`);
    } finally {
      await both.close();
    }
  });

  it('docs/metrics.md lists every metric Rampart defines, with its type, and no other', async () => {
    // Every metric registered, sampled yet or not.
    const defined = (await t.services.metrics.registry.getMetricsAsJSON())
      .filter((m) => m.name.startsWith('rampart_'))
      .map((m) => `${m.name} ${m.type}`);
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/metrics.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `(rampart_\w+)` \| (counter|gauge|histogram) \|/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(documented.sort()).toEqual(defined.sort());
    expect(defined.length).toBeGreaterThanOrEqual(20);
  });
});

describe('reading the text format (test/helpers/prometheus.ts)', () => {
  it('reads labelled histograms series by series, and refuses a malformed line', () => {
    const text = [
      '# HELP h A histogram.',
      '# TYPE h histogram',
      'h_bucket{le="0.1",route="/a"} 1',
      'h_bucket{le="+Inf",route="/a"} 2',
      'h_sum{route="/a"} 0.25',
      'h_count{route="/a"} 2',
      'h_bucket{le="0.1",route="/b"} 0',
      'h_bucket{le="+Inf",route="/b"} 1',
      'h_sum{route="/b"} 3',
      'h_count{route="/b"} 1',
      '# HELP c A counter.',
      '# TYPE c counter',
      'c{route="/a",note="a \\"quoted\\" value"} 7',
      '',
    ].join('\n');
    const families = parse(text);
    expect(families.map((f) => [f.name, f.type])).toEqual([
      ['h', 'HISTOGRAM'],
      ['c', 'COUNTER'],
    ]);
    expect(seriesOf(families, 'h', { route: '/a' })).toEqual({
      labels: { route: '/a' },
      buckets: { '0.1': 1, '+Inf': 2 },
      sum: 0.25,
      count: 2,
    });
    expect(histogramCount(families, 'h', { route: '/b' })).toBe(1);
    expect(seriesOf(families, 'c')?.labels.note).toBe('a "quoted" value');
    expect(metricValue(families, 'c', { route: '/a' })).toBe(7);
    expect(() => parse('# TYPE x counter\nx{route=/a} 1\n')).toThrow(/invalid line/);
    expect(() => parse('# TYPE x counter extra\nx 1\n')).toThrow(/invalid line/);
    expect(() => parse('# TYPE x gauge\nx{route="/a"}\n')).toThrow(/no numeric value/);
  });
});
