import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// A ticket's findings of one vulnerability on one web application differ only by where they are
// (one per URL and parameter): the ticket says where, and on which asset, for each.
describe.each(DB_KINDS)("a ticket's findings say where they are [%s]", (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  const send = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: {
        ...authHeaders(analyst),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers Location and AssetName for each linked finding', async () => {
    const app = (
      await send('POST', '/assets', {
        Kind: 'WebApplication',
        Url: 'https://shop.example/',
        FriendlyName: 'Shop',
      })
    ).json();
    const host = (await send('POST', '/assets', { Kind: 'Host', IpAddresses: ['10.9.0.7'] })).json();
    const xss = { Title: 'Reflected cross-site scripting', Severity: 'High' };
    const ids: string[] = [];
    for (const [asset, location] of [
      [app.Id, { Kind: 'Url', Url: 'https://shop.example/search', Parameter: 'q' }],
      [app.Id, { Kind: 'Url', Url: 'https://shop.example/cart', Parameter: 'item' }],
      [host.Id, { Kind: 'Port', Port: 8443, Protocol: 'tcp' }],
      [host.Id, undefined],
    ] as const) {
      const res = await send('POST', '/findings', { AssetId: asset, Vulnerability: xss, Location: location });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().Id);
    }
    const ticket = (
      await send('POST', '/tickets', { Title: 'Fix XSS', Priority: 'High', FindingIds: ids })
    ).json();
    const detail = await send('GET', `/tickets/${ticket.Id}`);
    expect(detail.statusCode).toBe(200);
    const byId = new Map(detail.json().Findings.map((f: { Id: string }) => [f.Id, f]));
    expect(byId.get(ids[0])).toMatchObject({
      AssetId: app.Id,
      AssetName: app.Name,
      Location: { Kind: 'Url', Url: 'https://shop.example/search', Parameter: 'q', Port: null },
    });
    expect(byId.get(ids[1])).toMatchObject({
      Location: { Kind: 'Url', Url: 'https://shop.example/cart', Parameter: 'item' },
    });
    expect(byId.get(ids[2])).toMatchObject({
      AssetName: host.Name,
      Location: { Kind: 'Port', Port: 8443, Protocol: 'tcp', Url: null },
    });
    expect(byId.get(ids[3])).toMatchObject({ Location: { Kind: 'None', Port: null, Url: null, File: null } });
    // The same shape as a finding's own Location.
    const finding = (await send('GET', `/findings/${ids[0]}`)).json();
    expect((byId.get(ids[0]) as { Location: unknown }).Location).toEqual(finding.Location);
  });
});
