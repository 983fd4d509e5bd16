import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe.each(DB_KINDS)('demo data [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, who: Credentials = t.admin) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { payload: '{}' } : {}),
    });

  it('loads a populated, clearly marked estate, once, and removes it', async () => {
    expect((await call('POST', '/demo', analyst)).statusCode).toBe(403);
    const junk = await t.app.inject({
      method: 'POST',
      url: '/api/latest/demo',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: '{"Size":"huge"}',
    });
    expect(junk.statusCode).toBe(400);
    expect(junk.json().errors[0].path).toBe('/Size');
    expect((await call('GET', '/assets')).json().TotalCount).toBe(0);
    const loaded = (await call('POST', '/demo')).json();
    expect(loaded.Assets).toBe(17);
    expect(loaded.Findings).toBeGreaterThan(35);
    expect(loaded.Tickets).toBe(3);

    const assets = (await call('GET', '/assets?Tag=demo')).json();
    expect(assets.TotalCount).toBe(17);
    expect(assets.Items.every((a: { Sources: string[] }) => a.Sources.includes('Demo'))).toBe(true);
    const kev = (await call('GET', '/findings?Kev=true&PageSize=500')).json();
    expect(kev.TotalCount).toBeGreaterThan(5);
    expect(
      kev.Items.some((f: { CVEReferences: string[] }) => f.CVEReferences.includes('CVE-2021-41773')),
    ).toBe(true);
    const states = (await call('GET', '/findings?State=Fixed&State=RiskAccepted&State=FalsePositive')).json();
    expect(states.TotalCount).toBe(8);
    expect((await call('GET', '/findings?State=Reopened')).json().TotalCount).toBe(2);
    // Weeks of history, back-dated: the rebuild the load asked for shows it as trends.
    await t.services.history.runSnapshot(t.org.id, { rebuild: true });
    const trend = (await call('GET', '/trends?Tag=demo')).json();
    expect(trend.Days.length).toBeGreaterThan(30);
    const sum = (field: 'New' | 'Fixed' | 'Reopened') =>
      trend.Days.reduce((n: number, d: Record<string, number>) => n + d[field]!, 0);
    expect(sum('New')).toBe(loaded.Findings);
    expect(sum('Fixed')).toBe(8);
    expect(sum('Reopened')).toBe(2);
    expect(
      new Set(trend.Days.filter((d: { Fixed: number }) => d.Fixed > 0).map((d: { Date: string }) => d.Date))
        .size,
    ).toBeGreaterThan(4);
    expect(trend.Days.at(-1).Mttr.Critical ?? trend.Days.at(-1).Mttr.High).not.toBeNull();
    const tickets = (await call('GET', '/tickets')).json();
    expect(
      tickets.Items.map((x: { Title: string }) => x.Title).every((title: string) =>
        title.startsWith('[Demo] '),
      ),
    ).toBe(true);

    const again = (await call('POST', '/demo')).json();
    expect(again.Tickets).toBe(0);
    expect((await call('GET', '/assets?Tag=demo')).json().TotalCount).toBe(17);
    expect((await call('GET', '/findings')).json().TotalCount).toBe(loaded.Findings);

    // Real work next to the demo survives its removal.
    const mine = (
      await t.app.inject({
        method: 'POST',
        url: '/api/latest/assets',
        headers: { ...authHeaders(analyst), 'content-type': 'application/json' },
        payload: JSON.stringify({ Kind: 'Host', IpAddresses: ['10.99.0.1'], Tags: ['demo'] }),
      })
    ).json();
    const removed = (await call('DELETE', '/demo')).json();
    expect(removed).toEqual({ Assets: 17, Tickets: 3 });
    expect((await call('GET', '/findings')).json().TotalCount).toBe(0);
    expect((await call('GET', '/tickets')).json().TotalCount).toBe(0);
    expect((await call('GET', `/assets/${mine.Id}`)).statusCode).toBe(200);
  });
});
