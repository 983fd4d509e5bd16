import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { type NessusHost, nessusReport } from './nessus-report.js';

// A finding seen again unchanged is not rewritten: its sighting (the findings one import
// reported) moves to the new import when that import reports all of them. What the API answers
// must be the same as if every finding had been rewritten.
describe.each(DB_KINDS)('last seen across re-imports [%s]', (kind) => {
  const DAY = 86_400_000;
  const t0 = new Date('2026-11-02T08:00:00.000Z');
  const day = (n: number) => new Date(t0.getTime() + n * DAY).toISOString();
  const clock = new TestClock(new Date(t0));
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  const a: NessusHost = {
    ip: '10.41.0.1',
    items: [
      { plugin: '1001', name: 'Alpha weakness', severity: 3 },
      { plugin: '1002', name: 'Beta weakness', severity: 2 },
    ],
  };
  const b: NessusHost = { ip: '10.41.0.2', items: [{ plugin: '1003', name: 'Gamma weakness', severity: 4 }] };

  const get = async (url: string, accept = 'application/json') =>
    t.app.inject({ method: 'GET', url: `/api/latest${url}`, headers: { ...authHeaders(analyst), accept } });
  const importOn = async (n: number, hosts: NessusHost[]) => {
    clock.now = new Date(day(n));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(analyst), 'content-type': 'application/xml' },
      payload: nessusReport(hosts),
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = (await get(`/imports/${res.json().Id}`)).json();
    expect(done.State).toBe('Completed');
    return done.Counts;
  };
  /** Title → [State, LastSeen] of every finding, as the list answers them. */
  const seen = async (query = '') => {
    const items = (await get(`/findings?PageSize=100&Sort=-LastSeen${query}`)).json().Items as {
      Title: string;
      State: string;
      LastSeen: string;
    }[];
    return Object.fromEntries(items.map((f) => [f.Title, [f.State, f.LastSeen]]));
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true, clock });
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('moves last seen only for the findings a re-import reports, whatever the others of their first import do', async () => {
    expect(await importOn(0, [a, b])).toMatchObject({ New: 3 });
    // Only host a: b's finding is outside this import's scope and keeps day 0.
    expect(await importOn(1, [a])).toMatchObject({ New: 0, Unchanged: 2, Fixed: 0 });
    expect(await seen()).toEqual({
      'Alpha weakness': ['Open', day(1)],
      'Beta weakness': ['Open', day(1)],
      'Gamma weakness': ['Open', day(0)],
    });
    expect(await importOn(2, [a, b])).toMatchObject({ New: 0, Unchanged: 3 });
    expect(Object.values(await seen()).map(([, at]) => at)).toEqual([day(2), day(2), day(2)]);

    // Beta gone on day 3: Fixed, last seen on day 2, while the others move on.
    const alphaOnly = { ...a, items: a.items.slice(0, 1) };
    expect(await importOn(3, [alphaOnly, b])).toMatchObject({ Unchanged: 2, Fixed: 1 });
    expect(await seen()).toEqual({
      'Alpha weakness': ['Open', day(3)],
      'Gamma weakness': ['Open', day(3)],
      'Beta weakness': ['Fixed', day(2)],
    });
    // An unchanged re-import then does not fix Beta again nor move its last seen.
    expect(await importOn(4, [alphaOnly, b])).toMatchObject({ Unchanged: 2, Fixed: 0, Reopened: 0 });
    expect((await seen())['Beta weakness']).toEqual(['Fixed', day(2)]);

    // Beta back on day 5: Reopened and seen then.
    expect(await importOn(5, [a, b])).toMatchObject({ Unchanged: 2, Reopened: 1 });
    expect(await seen()).toEqual({
      'Alpha weakness': ['Open', day(5)],
      'Beta weakness': ['Reopened', day(5)],
      'Gamma weakness': ['Open', day(5)],
    });
  });

  it('answers the same last seen through the filter and the CSV export', async () => {
    expect(await importOn(6, [b])).toMatchObject({ Unchanged: 1 });
    expect(Object.keys(await seen(`&LastSeenBefore=${encodeURIComponent(day(6))}`)).sort()).toEqual([
      'Alpha weakness',
      'Beta weakness',
    ]);
    const csv = (await get('/findings?Sort=-LastSeen', 'text/csv')).body.trim().split('\n');
    const header = csv[0]!.split(',');
    const rows = csv.slice(1).map((line) => line.split(','));
    const column = (name: string) => header.indexOf(name);
    expect(rows.map((r) => [r[column('Title')], r[column('LastSeen')]])).toEqual([
      ['Gamma weakness', day(6)],
      ...rows.slice(1).map((r) => [r[column('Title')], day(5)]),
    ]);
  });
  it('leaves the findings a re-import shows unchanged as they were when it shows most of their import', async () => {
    const c: NessusHost = {
      ip: '10.41.0.3',
      items: [
        { plugin: '1004', name: 'Delta weakness', severity: 3 },
        { plugin: '1005', name: 'Epsilon weakness', severity: 3 },
        { plugin: '1006', name: 'Zeta weakness', severity: 2 },
      ],
    };
    /** Title → [State, LastSeen, UpdatedAt] of host c's findings. */
    const onC = async () => {
      const items = (await get('/findings?PageSize=100')).json().Items as {
        Title: string;
        State: string;
        LastSeen: string;
        UpdatedAt: string;
      }[];
      return Object.fromEntries(
        items
          .filter((f) => c.items.some((i) => i.name === f.Title))
          .map((f) => [f.Title, [f.State, f.LastSeen, f.UpdatedAt]]),
      );
    };
    expect(await importOn(10, [c])).toMatchObject({ New: 3 });
    // Zeta gone on day 11: it alone is rewritten (Fixed); Delta and Epsilon are seen, not rewritten.
    expect(await importOn(11, [{ ...c, items: c.items.slice(0, 2) }])).toMatchObject({
      Unchanged: 2,
      Fixed: 1,
    });
    expect(await onC()).toEqual({
      'Delta weakness': ['Open', day(11), day(10)],
      'Epsilon weakness': ['Open', day(11), day(10)],
      'Zeta weakness': ['Fixed', day(10), day(11)],
    });
    // Seen again whole on day 12: Zeta comes back, the others move on, still not rewritten.
    expect(await importOn(12, [c])).toMatchObject({ Unchanged: 2, Reopened: 1 });
    expect(await onC()).toEqual({
      'Delta weakness': ['Open', day(12), day(10)],
      'Epsilon weakness': ['Open', day(12), day(10)],
      'Zeta weakness': ['Reopened', day(12), day(12)],
    });
  });
});
