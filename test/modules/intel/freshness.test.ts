import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ageInDays,
  isStale,
  newestDate,
  normaliseDataDate,
  STALE_AFTER_DAYS,
} from '../../../src/modules/intel/freshness.js';
import { authHeaders, buildTestApp, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe('feed dates as ISO 8601 UTC', () => {
  it("reads each feed's own form", () => {
    expect(normaliseDataDate('2025.08.25')).toBe('2025-08-25T00:00:00.000Z'); // KEV catalogVersion
    expect(normaliseDataDate('2026-08-16T00:00:00+0000')).toBe('2026-08-16T00:00:00.000Z'); // EPSS
    expect(normaliseDataDate('2026-10-08T22:17:07.363')).toBe('2026-10-08T22:17:07.363Z'); // NVD, UTC unsaid
    expect(normaliseDataDate('2026-10-08T22:17:07.363456')).toBe('2026-10-08T22:17:07.363Z');
    expect(normaliseDataDate('2026-10-09T00:30:00+02:00')).toBe('2026-10-08T22:30:00.000Z');
    expect(normaliseDataDate('2026-10-08T20:00:00-0330')).toBe('2026-10-08T23:30:00.000Z');
    expect(normaliseDataDate(' 2025-08-25 ')).toBe('2025-08-25T00:00:00.000Z');
  });

  it('answers null for what is no date, never a guess', () => {
    for (const bad of [
      null,
      undefined,
      '',
      'unknown',
      'v2025.03.14',
      '2025-02-30',
      '2025.13.01',
      '2025-08-25T24:00:00',
      '2025-08-25T23:61:00',
      '25.08.2025',
      '2025-08-25T12:00:00+5',
      '2025-08-25 and more',
    ])
      expect(normaliseDataDate(bad), String(bad)).toBeNull();
  });

  it('judges age by the time it is given', () => {
    const now = new Date('2025-09-25T00:00:00Z');
    expect(ageInDays('2025-08-25T00:00:00.000Z', now)).toBe(31);
    expect(isStale('2025-08-25T00:00:00.000Z', 10, now)).toBe(true);
    expect(isStale('2025-08-26T00:00:00.000Z', 10, now)).toBe(false); // exactly 30 days
    expect(isStale('2025-08-25T00:00:00.000Z', 0, now)).toBe(false); // nothing held
    expect(isStale(null, 10, now)).toBe(false); // no date known
    expect(isStale('2026-01-01T00:00:00.000Z', 10, now)).toBe(false); // dated after now
    expect(STALE_AFTER_DAYS).toBe(30);
    expect(newestDate([null, '2024-01-01', new Date('2025-01-01T00:00:00Z'), 'garbage'])).toBe(
      '2025-01-01T00:00:00.000Z',
    );
    expect(newestDate([null, undefined])).toBeNull();
  });
});

const FIXTURES = new URL('../../fixtures/intel/', import.meta.url);
const KB = new URL('../../../knowledge-base/', import.meta.url);

function kevCatalogue(catalogVersion: string): string {
  const full = JSON.parse(
    readFileSync(new URL('kev/known_exploited_vulnerabilities.json', FIXTURES), 'utf8'),
  );
  return JSON.stringify({
    ...full,
    catalogVersion,
    count: 2,
    vulnerabilities: full.vulnerabilities.slice(0, 2),
  });
}

function nvdPage(timestamp: string): string {
  const cve = JSON.parse(readFileSync(new URL('nvd/CVE-2024-6387.json', FIXTURES), 'utf8'));
  return JSON.stringify({
    resultsPerPage: 1,
    startIndex: 0,
    totalResults: 1,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp,
    vulnerabilities: [{ cve }],
  });
}

function osvAdvisory(modified: string): string {
  const all = JSON.parse(gunzipSync(readFileSync(new URL('osv-advisories.json.gz', KB))).toString('utf8'));
  return JSON.stringify({ ...all[0], modified });
}

describe.each(DB_KINDS)('GET /intel/feeds: how current each feed is [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const clock = new TestClock(new Date('2025-09-01T00:00:00Z'));

  const feeds = async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/latest/intel/feeds',
      headers: authHeaders(t.admin),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    return { body, feed: (name: string) => body.Items.find((i: { Feed: string }) => i.Feed === name) };
  };

  const load = async (file: string, feed: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/latest/intel/loads?Feed=${feed}`,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/octet-stream' },
      payload: file,
    });
    expect(res.statusCode, res.body).toBe(202);
    for (let i = 0; i < 600; i++) {
      const now = await t.app.inject({
        method: 'GET',
        url: `/api/latest/intel/loads/${res.json().Id}`,
        headers: authHeaders(t.admin),
      });
      if (now.json().State !== 'Running') return now.json();
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the load did not end');
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { clock });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('knows no date and flags nothing while no feed is loaded', async () => {
    const { body } = await feeds();
    expect(body).toMatchObject({ Now: '2025-09-01T00:00:00.000Z', StaleAfterDays: 30, Stale: false });
    for (const item of body.Items) expect(item).toMatchObject({ Records: 0, DataDate: null, Stale: false });
  });

  it("answers each load's date in ISO 8601 UTC, keeping the file's own form", async () => {
    const kev = await load(kevCatalogue('2025.08.25'), 'kev');
    expect(kev).toMatchObject({
      State: 'Completed',
      DataDate: '2025-08-25T00:00:00.000Z',
      DataDateAsGiven: '2025.08.25',
    });
    const epss = await load(
      '#model_version:v2025.03.14,score_date:2025-08-20T00:00:00+0000\ncve,epss,percentile\nCVE-2024-6387,0.5,0.9\n',
      'epss',
    );
    expect(epss).toMatchObject({ DataDate: '2025-08-20T00:00:00.000Z' });
    const nvd = await load(nvdPage('2025-08-31T23:30:00.000'), 'nvd');
    expect(nvd).toMatchObject({
      DataDate: '2025-08-31T23:30:00.000Z',
      DataDateAsGiven: '2025-08-31T23:30:00.000',
    });
    const osv = await load(osvAdvisory('2025-07-01T00:00:00Z'), 'osv');
    // An OSV file states no date of its own: the feed is as current as its newest advisory.
    expect(osv).toMatchObject({ State: 'Completed', DataDate: null, DataDateAsGiven: null });
  });

  it('flags the feeds older than 30 days at the application clock', async () => {
    const { body, feed } = await feeds();
    expect(body).toMatchObject({ Now: '2025-09-01T00:00:00.000Z', Stale: true });
    expect(feed('kev')).toMatchObject({ DataDate: '2025-08-25T00:00:00.000Z', Stale: false });
    expect(feed('epss')).toMatchObject({ DataDate: '2025-08-20T00:00:00.000Z', Stale: false });
    expect(feed('nvd')).toMatchObject({ DataDate: '2025-08-31T23:30:00.000Z', Stale: false });
    expect(feed('osv')).toMatchObject({ DataDate: '2025-07-01T00:00:00.000Z', Stale: true });
    expect(feed('cve5')).toMatchObject({ Records: 0, DataDate: null, Stale: false });

    clock.now = new Date('2025-10-01T00:00:00Z');
    const later = await feeds();
    expect(later.body.Now).toBe('2025-10-01T00:00:00.000Z');
    expect(later.feed('kev').Stale).toBe(true);
    expect(later.feed('epss').Stale).toBe(true);
    expect(later.feed('nvd').Stale).toBe(false); // 29 days and a half
  });

  it('keeps a date that is no date as given, and the feed its last known date', async () => {
    clock.now = new Date('2025-09-01T00:00:00Z');
    const odd = await load(kevCatalogue('version 7'), 'kev');
    expect(odd).toMatchObject({ State: 'Completed', DataDate: null, DataDateAsGiven: 'version 7' });
    const impossible = await load(nvdPage('2025-02-30T00:00:00.000'), 'nvd');
    expect(impossible).toMatchObject({ DataDate: null, DataDateAsGiven: '2025-02-30T00:00:00.000' });
    const { feed } = await feeds();
    expect(feed('kev')).toMatchObject({ DataDate: '2025-08-25T00:00:00.000Z', Stale: false });
    expect(feed('nvd')).toMatchObject({ DataDate: '2025-08-31T23:30:00.000Z' });
  });

  it('describes the new fields in the API documentation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/apidoc/latest/documentation.json' })).json();
    const status = doc.paths['/intel/feeds'] ?? doc.paths['/api/latest/intel/feeds'];
    const schema = status.get.responses['200'].content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(Object.keys(resolved.properties)).toEqual(
      expect.arrayContaining(['Now', 'StaleAfterDays', 'Stale']),
    );
    expect(Object.keys(resolved.properties.Items.items.properties)).toEqual(
      expect.arrayContaining(['DataDate', 'Stale']),
    );
  });
});
