import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildRunner } from '../../../src/background.js';
import { officialSourcesOf } from '../../../src/config.js';
import { syncSourceLines } from '../../../src/modules/intel/presenters.js';
import { INTEL_SYNC_JOB, IntelSync, type SyncOptions } from '../../../src/modules/intel/sync.js';
import { authHeaders, buildTestApp, type TestApp, testConfig } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { IntelMirror, modified, NVD_PATH, RECORDS, type Seen } from '../../helpers/intel-mirror.js';

// The sync from the official sources against a server on 127.0.0.1 that answers as they do, from
// real records (test/helpers/intel-mirror.ts). No test here reaches the internet.

describe.each(DB_KINDS)('sync from the official sources [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let mirror: IntelMirror;
  let sleeps: number[];

  beforeEach(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    sleeps = [];
    mirror = await new IntelMirror(() => t.clock.now.getTime()).start();
  });
  afterEach(async () => {
    await mirror?.close();
    await t?.close();
    await tdb?.drop();
  });

  /** Waits by moving the application's clock: a test never sleeps. */
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    t.clock.now = new Date(t.clock.now.getTime() + ms);
  };
  const sources = () => mirror.sources();
  const sync = (options: Partial<SyncOptions> = {}) =>
    new IntelSync(t.services.intel, {
      urls: [],
      sources: sources(),
      clock: t.clock.fn,
      sleep,
      retries: 3,
      ...options,
    });
  const nvdRequests = () => mirror.seen.filter((s) => s.path === NVD_PATH);
  const pageParams = (s: Seen) => ({
    start: s.url.searchParams.get('lastModStartDate'),
    end: s.url.searchParams.get('lastModEndDate'),
    startIndex: Number(s.url.searchParams.get('startIndex')),
  });
  const counts = async () => (await t.services.intel.feedStatus()).counts;
  const progress = (source: string) => t.services.intel.syncProgress(source);

  it('first full load: NVD page by page, the KEV catalogue, EPSS and each OSV ecosystem, all from the configured base', async () => {
    const outcome = await sync().run();
    expect(outcome.errors).toEqual([]);
    // Nothing but the local server was asked, and the official addresses never.
    expect(mirror.seen.length).toBeGreaterThan(0);
    expect(mirror.seen.every((s) => s.headers.host === new URL(mirror.base).host)).toBe(true);
    // No window on a first load: the whole catalogue, two records a page.
    expect(nvdRequests().map(pageParams)).toEqual([
      { start: null, end: null, startIndex: 0 },
      { start: null, end: null, startIndex: 2 },
      { start: null, end: null, startIndex: 4 },
    ]);
    expect(nvdRequests()[0]!.url.searchParams.get('resultsPerPage')).toBe('2');
    expect(mirror.seen.map((s) => s.path).filter((p) => p !== NVD_PATH)).toEqual([
      '/kev.json',
      '/epss.csv.gz',
      '/osv/npm/all.zip',
      '/osv/PyPI/all.zip',
    ]);
    expect(await counts()).toMatchObject({ nvd: 6, kev: 3, epss: 10, osv: 10 });
    expect(await t.services.intel.cve(RECORDS[5]!.id)).not.toBeNull();
    const osv = await t.services.intel.cve('CVE-2021-23337');
    expect(osv?.osv.map((a) => a.id)).toContain('GHSA-35jh-r3h4-6jhm');
    // Synced up to when the full load began; the next run reads the changes since.
    expect(await progress('nvd')).toMatchObject({
      syncedUntil: new Date('2026-11-21T12:00:00Z'),
      windowStart: null,
      windowEnd: null,
      nextIndex: 0,
      totalResults: 6,
      lastError: null,
    });
    expect((await progress('osv:npm')).lastSuccessAt).toEqual(expect.any(Date));
  });

  it('after a full load, reads the records modified since in windows of at most 120 days', async () => {
    // As if the full load had been made at the start of 2026: three windows to today.
    await t.services.intel.saveSyncProgress('nvd', { syncedUntil: new Date('2026-01-01T00:00:00Z') });
    const outcome = await sync({
      sources: { ...sources(), nvd: { url: `${mirror.base}${NVD_PATH}`, resultsPerPage: 2 } },
    }).run();
    expect(outcome.errors).toEqual([]);
    const windows = [...new Set(nvdRequests().map((s) => `${pageParams(s).start} ${pageParams(s).end}`))];
    expect(windows).toEqual([
      '2026-01-01T00:00:00.000+00:00 2026-05-01T00:00:00.000+00:00',
      '2026-05-01T00:00:00.000+00:00 2026-08-29T00:00:00.000+00:00',
      '2026-08-29T00:00:00.000+00:00 2026-11-21T12:00:00.000+00:00',
    ]);
    // Only what changed in 2026 was loaded.
    const changed = RECORDS.filter((r) => modified(r) >= Date.parse('2026-01-01T00:00:00Z')).map((r) => r.id);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(RECORDS.length);
    expect((await counts()).nvd).toBe(changed.length);
    for (const id of changed) expect(await t.services.intel.cve(id)).not.toBeNull();
    expect((await progress('nvd')).syncedUntil).toEqual(new Date('2026-11-21T12:00:00Z'));

    // A day later only that day is asked.
    mirror.seen = [];
    t.clock.advanceDays(1);
    await sync().run();
    expect(nvdRequests().map(pageParams)).toEqual([
      { start: '2026-11-21T12:00:00.000+00:00', end: '2026-11-22T12:00:00.000+00:00', startIndex: 0 },
    ]);
  });

  it("keeps to NVD's rate limit: 5 requests in 30 s without a key, 50 with one sent as apiKey", async () => {
    const onePerPage = { ...sources(), nvd: { url: `${mirror.base}${NVD_PATH}`, resultsPerPage: 1 } };
    await sync({ sources: onePerPage }).run();
    const times = nvdRequests().map((s) => s.at);
    expect(times).toHaveLength(6);
    // Any six requests in a row span at least 30 s.
    expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(30_000);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(nvdRequests().every((s) => s.headers.apikey === undefined)).toBe(true);

    // With a key: ten times the rate, and the key goes as the apiKey header.
    await t.services.intel.saveSyncProgress('nvd', { syncedUntil: null, windowEnd: null, nextIndex: 0 });
    mirror.seen = [];
    sleeps = [];
    await sync({ sources: { ...onePerPage, nvd: { ...onePerPage.nvd, apiKey: 'test-key-1' } } }).run();
    expect(nvdRequests()).toHaveLength(6);
    expect(sleeps).toEqual([]);
    expect(nvdRequests().every((s) => s.headers.apikey === 'test-key-1')).toBe(true);
  });

  it('retries 403 and 503 after a pause; a source that keeps refusing fails after the retries and the others load', async () => {
    const nvdFirst = (u: URL) => u.pathname === NVD_PATH && u.searchParams.get('startIndex') === '2';
    mirror.special.push(
      { match: nvdFirst, answer: { status: 503, body: 'busy' } },
      { match: nvdFirst, answer: { status: 403, body: 'slow down', headers: { 'retry-after': '7' } } },
    );
    const outcome = await sync().run();
    expect(outcome.errors).toEqual([]);
    expect(nvdRequests().map((s) => pageParams(s).startIndex)).toEqual([0, 2, 2, 2, 4]);
    // The first pause is the back-off (30 s), the second the server's Retry-After.
    expect(sleeps).toEqual(expect.arrayContaining([30_000, 7_000]));
    expect((await counts()).nvd).toBe(6);

    // Refused every time: the NVD source fails with the status, after 1 + 3 attempts.
    await t.services.intel.saveSyncProgress('nvd', { syncedUntil: null });
    const refuse = { match: (u: URL) => u.pathname === NVD_PATH, answer: { status: 403, body: 'no' } };
    mirror.special = [refuse, refuse, refuse, refuse, refuse];
    mirror.seen = [];
    const failed = await sync().run();
    expect(nvdRequests()).toHaveLength(4);
    expect(failed.errors).toEqual([
      {
        url: `${mirror.base}${NVD_PATH}`,
        error: expect.stringMatching(/^nvd: GET .* answered 403 Forbidden after 4 attempts$/),
      },
    ]);
    expect((await progress('nvd')).lastError).toMatch(/answered 403 Forbidden after 4 attempts/);
    // The others were synced as usual.
    expect(mirror.seen.filter((s) => s.path === '/kev.json')).toHaveLength(1);

    // A server that cannot be reached at all (nothing listens on port 1) is tried once more only.
    sleeps = [];
    const unreachable = await sync({ sources: { ...sources(), kev: 'http://127.0.0.1:1/kev.json' } }).run();
    expect(unreachable.errors).toContainEqual({
      url: 'http://127.0.0.1:1/kev.json',
      error: expect.stringMatching(/^kev: GET http:\/\/127\.0\.0\.1:1\/kev\.json failed after 2 attempts: /),
    });
    expect(sleeps[0]).toBe(30_000);
  });

  it('a sync stopped mid-way resumes on its next run from the last committed page', async () => {
    const stop = new AbortController();
    mirror.onRequest = (url) => {
      if (url.pathname === NVD_PATH && url.searchParams.get('startIndex') === '4') stop.abort();
    };
    await expect(sync({ freshForMs: 12 * 3_600_000 }).run(stop.signal)).rejects.toThrow(/abort/i);
    expect(await progress('nvd')).toMatchObject({ syncedUntil: null, nextIndex: 4, totalResults: 6 });
    expect((await counts()).nvd).toBe(4);

    // The next run (another process, say) asks only for what was not committed.
    mirror.onRequest = () => {};
    mirror.seen = [];
    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    const outcome = await sync({ freshForMs: 12 * 3_600_000 }).run();
    expect(outcome.errors).toEqual([]);
    // Then the minute that passed since the full load began, as a window of its own.
    expect(nvdRequests().map(pageParams)).toEqual([
      { start: null, end: null, startIndex: 4 },
      { start: '2026-11-21T12:00:00.000+00:00', end: '2026-11-21T12:01:00.000+00:00', startIndex: 0 },
    ]);
    // KEV and EPSS were synced before the stop: not fetched again. OSV had not been reached.
    expect(mirror.seen.map((s) => s.path).filter((p) => p !== NVD_PATH)).toEqual([
      '/osv/npm/all.zip',
      '/osv/PyPI/all.zip',
    ]);
    expect((await counts()).nvd).toBe(6);
    expect((await progress('nvd')).syncedUntil).toEqual(new Date('2026-11-21T12:01:00Z'));
  });

  it('bad answers fail their source clearly and lose nothing already loaded', async () => {
    const page = (i: string) => (u: URL) => u.pathname === NVD_PATH && u.searchParams.get('startIndex') === i;
    mirror.special.push(
      // Broken JSON on the second page.
      {
        match: page('2'),
        answer: { status: 200, body: '{"resultsPerPage": 2, "startIndex": 2, "vulnerabilities": [{"cve": {' },
      },
      { match: (u) => u.pathname === '/kev.json', answer: { status: 404, body: 'gone' } },
      {
        match: (u) => u.pathname === '/osv/npm/all.zip',
        answer: { status: 200, body: 'PK this is not a zip' },
      },
    );
    const outcome = await sync().run();
    const errors = Object.fromEntries(outcome.errors.map((e) => [e.error.split(':')[0], e.error]));
    expect(errors.nvd).toMatch(/startIndex=2.*(JSON|line \d+)/);
    expect(errors.kev).toMatch(/answered 404 Not Found$/);
    expect(errors.osv).toMatch(/not a readable zip/i);
    // The 404 was not retried; the first NVD page stays loaded, and the sync resumes at the broken one.
    expect(mirror.seen.filter((s) => s.path === '/kev.json')).toHaveLength(1);
    expect((await counts()).nvd).toBe(2);
    expect(await progress('nvd')).toMatchObject({ nextIndex: 2, syncedUntil: null });
    expect((await progress('osv:PyPI')).lastError).toBeNull();
    expect((await counts()).osv).toBe(2);

    // An answer of the wrong shape: JSON, but no CVE API page.
    mirror.special.push({ match: page('2'), answer: { status: 200, body: '{"message": "Invalid apiKey"}' } });
    const wrong = await sync().run();
    expect(wrong.errors.find((e) => e.error.startsWith('nvd:'))?.error).toMatch(/not a CVE API 2.0 page|NVD/);
    expect((await counts()).nvd).toBe(2);
    expect((await progress('nvd')).nextIndex).toBe(2);

    // Once the answers are right again, everything loads, from where it stopped.
    mirror.seen = [];
    const fixed = await sync().run();
    expect(fixed.errors).toEqual([]);
    expect(nvdRequests().map((s) => pageParams(s).startIndex)).toEqual([2, 4]);
    expect(await counts()).toMatchObject({ nvd: 6, kev: 3, osv: 10 });
  });

  it('RAMPART_INTEL_SYNC=off asks nothing; on, the schedule syncs the mirrors configured', async () => {
    const instance = (env: Record<string, string>) =>
      buildRunner({
        services: t.services,
        databaseKind: tdb.database.kind,
        exclusive: tdb.database.exclusive,
        log: { info: () => {}, warn: () => {}, error: () => {} },
        config: testConfig(env),
      });
    const jobs = async (state: string) =>
      (await t.services.jobs.list({ kind: INTEL_SYNC_JOB, state, pageSize: 10 })).totalCount;

    const off = instance({ RAMPART_INTEL_SYNC: 'off' });
    await off.start();
    await off.tick();
    await off.stop();
    expect(await jobs('Queued')).toBe(0);
    expect(mirror.seen).toEqual([]);

    const mirrors = {
      RAMPART_INTEL_SYNC: 'on',
      RAMPART_INTEL_NVD_URL: `${mirror.base}${NVD_PATH}`,
      RAMPART_INTEL_KEV_URL: `${mirror.base}/kev.json`,
      RAMPART_INTEL_EPSS_URL: `${mirror.base}/epss.csv.gz`,
      RAMPART_INTEL_OSV_URL: `${mirror.base}/osv`,
      RAMPART_INTEL_OSV_ECOSYSTEMS: 'npm',
    };
    // The sources the schedule reads are the configured mirrors, never the official addresses.
    expect(officialSourcesOf(testConfig(mirrors))).toEqual({
      nvd: { url: `${mirror.base}${NVD_PATH}`, apiKey: undefined, resultsPerPage: 2000 },
      kev: `${mirror.base}/kev.json`,
      epss: `${mirror.base}/epss.csv.gz`,
      osv: { url: `${mirror.base}/osv`, ecosystems: ['npm'] },
    });
    const on = instance(mirrors);
    try {
      await on.start();
      await on.tick();
      await vi.waitFor(async () => expect(await jobs('Completed')).toBe(1), { timeout: 30_000 });
    } finally {
      await on.stop();
    }
    expect(mirror.seen.every((s) => s.headers.host === new URL(mirror.base).host)).toBe(true);
    expect(nvdRequests()).toHaveLength(1);
    expect(await counts()).toMatchObject({ nvd: 6, kev: 3, epss: 10, osv: 8 });
  });

  it('the feed status shows each source: its last sync, its progress and its last error', async () => {
    const stop = new AbortController();
    mirror.special.push({
      match: (u) => u.pathname === '/epss.csv.gz',
      answer: { status: 500, body: 'oops' },
    });
    mirror.onRequest = (url) => {
      if (url.pathname === NVD_PATH && url.searchParams.get('startIndex') === '2') stop.abort();
    };
    await expect(sync().run(stop.signal)).rejects.toThrow(/abort/i);
    const status = (
      await t.app.inject({ method: 'GET', url: '/api/latest/intel/feeds', headers: authHeaders(t.admin) })
    ).json();
    const bySource = Object.fromEntries((status.Sources as { Source: string }[]).map((s) => [s.Source, s]));
    expect(bySource.kev).toMatchObject({ LastError: null, LastSuccessAt: '2026-11-21T12:00:00.000Z' });
    expect(bySource.epss).toMatchObject({
      LastSuccessAt: null,
      LastError: expect.stringMatching(/answered 500/),
    });
    expect(bySource.nvd).toMatchObject({
      SyncedUntil: null,
      Progress: { WindowStart: null, WindowEnd: '2026-11-21T12:00:00.000Z', NextIndex: 2, TotalResults: 6 },
    });
    expect(status.SyncEnabled).toBe(false);
    // `rampart intel status` prints the same, one line a source.
    const lines = syncSourceLines(status.Sources);
    expect(lines).toContain(
      'nvd            never synced; under way: first full load, next from record 2 of 6; last error: The sync stopped before this source was done (the server stopping); the next sync resumes it.',
    );
    expect(lines).toContain('kev            last synced 2026-11-21T12:00:00.000Z');
    expect(lines.find((l) => l.startsWith('epss'))).toMatch(
      /^epss +never synced; last error: GET http:\/\/127\.0\.0\.1:\d+\/epss\.csv\.gz answered 500 Internal Server Error$/,
    );
  });
});
