import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../src/lib/cursor.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('installed software [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let reader: Credentials;
  let outsider: Credentials;
  let host: string;

  const send = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    who: Credentials,
    body?: unknown,
    channel = 'latest',
  ) =>
    t.app.inject({
      method,
      url: `/api/${channel}${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    host = (
      await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.9.0.1'], Name: 'web-1' })
    ).json().Id;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('records software, merges the same name and version, and counts its open findings', async () => {
    const openssl = {
      Name: 'openssl',
      Version: '3.0.11-1~deb12u2',
      Category: 'OsPackage',
      Purl: 'pkg:deb/debian/openssl@3.0.11-1~deb12u2',
    };
    const first = await send('POST', `/assets/${host}/software`, analyst, openssl);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      AssetId: host,
      Name: 'openssl',
      Version: '3.0.11-1~deb12u2',
      Category: 'OsPackage',
      Vendor: null,
      OpenFindings: { Critical: 0, High: 0, Medium: 0, Low: 0 },
    });
    const again = await send('POST', `/assets/${host}/software`, analyst, {
      ...openssl,
      Name: 'OpenSSL',
      Vendor: 'OpenSSL Project',
      Cpe: 'cpe:2.3:a:openssl:openssl:3.0.11:*:*:*:*:*:*:*',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ Id: first.json().Id, Name: 'openssl', Vendor: 'OpenSSL Project' });
    // Another version of the same package is another row.
    expect(
      (await send('POST', `/assets/${host}/software`, analyst, { ...openssl, Version: '1.1.1w' })).statusCode,
    ).toBe(201);

    const finding = (severity: string, title: string, version?: string) =>
      send('POST', '/findings', analyst, {
        AssetId: host,
        Vulnerability: { Title: title, Severity: severity },
        Location: { Kind: 'Package', Package: 'openssl', ...(version ? { Version: version } : {}) },
      });
    expect((await finding('High', 'OpenSSL X.509 overflow', '3.0.11-1~deb12u2')).statusCode).toBe(201);
    expect((await finding('Critical', 'OpenSSL any version', undefined)).statusCode).toBe(201);
    expect((await finding('Medium', 'OpenSSL timing side channel', '3.0.11-1~deb12u2')).statusCode).toBe(201);
    const fixed = (await finding('Low', 'OpenSSL old bug', '3.0.11-1~deb12u2')).json();
    expect((await send('POST', `/findings/${fixed.Id}/state`, analyst, { State: 'Fixed' })).statusCode).toBe(
      200,
    );

    const list = (await send('GET', `/assets/${host}/software`, reader)).json();
    expect(list.TotalCount).toBe(2);
    expect(list.Items.map((s: { Version: string }) => s.Version)).toEqual(['1.1.1w', '3.0.11-1~deb12u2']);
    expect(list.Items[1].OpenFindings).toEqual({ Critical: 1, High: 1, Medium: 1, Low: 0 });
    expect(list.Items[0].OpenFindings).toEqual({ Critical: 1, High: 0, Medium: 0, Low: 0 });
  });

  it('filters by name, vendor and category, and pages by name', async () => {
    for (const name of ['bash', 'curl', 'zlib1g']) {
      await send('POST', `/assets/${host}/software`, analyst, {
        Name: name,
        Version: '1.0',
        Category: 'OsPackage',
      });
    }
    await send('POST', `/assets/${host}/software`, analyst, {
      Name: 'Debian',
      Version: '12',
      Category: 'OperatingSystem',
    });
    const os = (await send('GET', `/assets/${host}/software?Category=OperatingSystem`, reader)).json();
    expect(os.Items.map((s: { Name: string }) => s.Name)).toEqual(['Debian']);
    const search = (await send('GET', `/assets/${host}/software?Search=openssl%20corp`, reader)).json();
    expect(search.Items).toHaveLength(0);
    const vendor = (await send('GET', `/assets/${host}/software?Search=Project`, reader)).json();
    expect(vendor.Items.map((s: { Version: string }) => s.Version)).toEqual(['3.0.11-1~deb12u2']);

    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { Items: { Name: string }[]; NextCursor: string | null; TotalCount: number } = (
        await send('GET', `/assets/${host}/software?PageSize=2${cursor ? `&Cursor=${cursor}` : ''}`, reader)
      ).json();
      expect(page.TotalCount).toBe(6);
      names.push(...page.Items.map((s) => s.Name));
      cursor = page.NextCursor;
    } while (cursor);
    expect(names).toEqual(['bash', 'curl', 'Debian', 'openssl', 'openssl', 'zlib1g']);
  });

  it('refuses bad input and stores nothing', async () => {
    const before = (await send('GET', `/assets/${host}/software`, reader)).json().TotalCount;
    const bad = [
      { Name: '' },
      { Name: '   ' },
      { Name: 'x', Category: 'Spreadsheet' },
      { Name: 'x', Cpe: 'openssl 3' },
      { Name: 'x', Purl: 'npm:left-pad' },
      { Name: 'x', Colour: 'blue' },
      { Version: '1.0' },
    ];
    for (const body of bad) {
      const res = await send('POST', `/assets/${host}/software`, analyst, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    }
    expect((await send('GET', `/assets/${host}/software?Cursor=bm9wZQ`, reader)).statusCode).toBe(400);
    const forged = encodeCursor({ Name: 'a', Version: '1', Id: "1' or '1'='1" });
    expect((await send('GET', `/assets/${host}/software?Cursor=${forged}`, reader)).statusCode).toBe(400);
    expect((await send('GET', `/assets/${host}/software?PageSize=0`, reader)).statusCode).toBe(400);
    expect((await send('GET', '/assets/not-a-uuid/software', reader)).statusCode).toBe(400);
    expect((await send('POST', `/assets/${host}/software`, reader, { Name: 'vim' })).statusCode).toBe(403);
    expect((await send('GET', `/assets/${host}/software`, reader)).json().TotalCount).toBe(before);
  });

  it('keeps organisations apart: a foreign asset or software answers 404 and is not changed', async () => {
    const mine = (await send('GET', `/assets/${host}/software?PageSize=1`, reader)).json().Items[0];
    expect((await send('GET', `/assets/${host}/software`, outsider)).statusCode).toBe(404);
    expect((await send('POST', `/assets/${host}/software`, outsider, { Name: 'evil' })).statusCode).toBe(404);
    expect((await send('DELETE', `/assets/${host}/software/${mine.Id}`, outsider)).statusCode).toBe(404);
    const radar = await send(
      'POST',
      '/assets/installedsoftware/withStartIndex/0/andPageSize/10',
      outsider,
      { AssetHostId: host },
      'integration',
    );
    expect(radar.statusCode).toBe(404);
    const theirs = (
      await send('POST', '/assets', outsider, { Kind: 'Host', IpAddresses: ['10.9.0.1'] })
    ).json().Id;
    expect((await send('GET', `/assets/${theirs}/software`, reader)).statusCode).toBe(404);
    expect((await send('DELETE', `/assets/${theirs}/software/${mine.Id}`, analyst)).statusCode).toBe(404);
    expect((await send('GET', `/assets/${host}/software`, reader)).json().Items[0].Id).toBe(mine.Id);
  });

  it('serves the original service’s installedsoftware call', async () => {
    const url = '/assets/installedsoftware/withStartIndex/1/andPageSize/2';
    const res = await send(
      'POST',
      url,
      reader,
      { AssetHostId: host, categoryName: '', SortPrimary: 'Name' },
      'integration',
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.TotalCount).toBe(6);
    expect(body.Items).toEqual([
      expect.objectContaining({ Name: 'curl', Version: '1.0', VulnerabilitiesHigh: 0 }),
      expect.objectContaining({ Name: 'Debian', Category: 'OperatingSystem' }),
    ]);
    const openssl = await send(
      'POST',
      '/assets/installedsoftware/withStartIndex/0/andPageSize/10',
      reader,
      { AssetHostId: host, categoryName: 'ospackage' },
      'integration',
    );
    const current = openssl.json().Items.find((s: { Version: string }) => s.Version === '3.0.11-1~deb12u2');
    expect(current).toMatchObject({
      VulnerabilitiesHigh: 2,
      VulnerabilitiesMedium: 1,
      VulnerabilitiesLow: 0,
    });
    expect(openssl.json().TotalCount).toBe(5);
    expect((await send('POST', url, reader, { AssetHostId: host }, 'latest')).json()).toEqual(
      (await send('POST', url, reader, { AssetHostId: host }, 'integration')).json(),
    );
    expect((await send('POST', url, reader, { categoryName: 'x' }, 'integration')).statusCode).toBe(400);
    expect((await send('POST', url, reader, { AssetHostId: 'nope' }, 'integration')).statusCode).toBe(400);
  });

  it('removes software', async () => {
    const curl = (await send('GET', `/assets/${host}/software?Search=curl`, reader)).json().Items[0];
    expect((await send('DELETE', `/assets/${host}/software/${curl.Id}`, reader)).statusCode).toBe(403);
    expect((await send('DELETE', `/assets/${host}/software/${curl.Id}`, analyst)).statusCode).toBe(204);
    expect((await send('DELETE', `/assets/${host}/software/${curl.Id}`, analyst)).statusCode).toBe(404);
    expect((await send('GET', `/assets/${host}/software?Search=curl`, reader)).json().TotalCount).toBe(0);
  });
});
