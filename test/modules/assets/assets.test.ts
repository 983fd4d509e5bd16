import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Organization } from '../../../src/modules/organizations/service.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('assets [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let readOnly: Credentials;
  let manager: Credentials;
  let other: Organization;
  let otherAnalyst: Credentials;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    readOnly = await t.userWithKey('ReadOnly');
    manager = await t.userWithKey('Manager');
    other = await t.services.organizations.create('Elsewhere Ltd');
    otherAnalyst = await t.userWithKey('Analyst', other);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const send = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  it('creates a host, and merges a second report that shares an identifier', async () => {
    const first = await send('POST', '/assets', analyst, {
      Kind: 'Host',
      Fqdn: 'Web01.Corp.Example.com',
      IpAddresses: ['10.1.0.5'],
      OperatingSystem: 'Debian 12',
      Tags: ['prod', 'web'],
    });
    expect(first.statusCode).toBe(201);
    const a = first.json();
    expect(a).toMatchObject({
      Kind: 'Host',
      Name: 'web01.corp.example.com',
      Hostname: 'web01',
      Fqdn: 'web01.corp.example.com',
      DomainName: 'corp.example.com',
      IpAddress: '10.1.0.5',
      OperatingSystem: 'Debian 12',
      Criticality: 3,
      Tags: ['prod', 'web'],
      Sources: ['Manual'],
    });

    // Same address, new MAC and another address: the same host, which learns both.
    const second = await send('POST', '/assets', analyst, {
      Kind: 'Host',
      IpAddresses: ['10.1.0.5', '10.1.0.6'],
      MacAddresses: ['AA-BB-CC-DD-EE-01'],
      Tags: ['pci'],
    });
    expect(second.statusCode).toBe(200);
    const merged = second.json();
    expect(merged.Id).toBe(a.Id);
    expect(merged.IpAddresses).toEqual(['10.1.0.5', '10.1.0.6']);
    expect(merged.MacAddresses).toEqual(['aa:bb:cc:dd:ee:01']);
    expect(merged.Tags).toEqual(['pci', 'prod', 'web']);
    expect(merged.OperatingSystem).toBe('Debian 12');
    expect(merged.Identifiers).toEqual(
      expect.arrayContaining([
        { Kind: 'fqdn', Value: 'web01.corp.example.com' },
        { Kind: 'ip', Value: '10.1.0.6' },
        { Kind: 'mac', Value: 'aa:bb:cc:dd:ee:01' },
      ]),
    );
    // And by the MAC alone now.
    const third = await send('POST', '/assets', analyst, {
      Kind: 'Host',
      MacAddresses: ['aa:bb:cc:dd:ee:01'],
    });
    expect(third.json().Id).toBe(a.Id);
  });

  it('makes one asset of two simultaneous reports of a new host', async () => {
    const body = { Kind: 'Host', IpAddresses: ['10.9.9.9'] };
    const [x, y] = await Promise.all([
      send('POST', '/assets', analyst, body),
      send('POST', '/assets', analyst, body),
    ]);
    expect([x.statusCode, y.statusCode].sort()).toEqual([200, 201]);
    expect(x.json().Id).toBe(y.json().Id);
  });

  it('identifies web applications by their normalised base URL', async () => {
    const a = await send('POST', '/assets', analyst, {
      Kind: 'WebApplication',
      Url: 'HTTPS://Shop.Example.com:443/',
    });
    expect(a.statusCode).toBe(201);
    expect(a.json().Url).toBe('https://shop.example.com');
    const b = await send('POST', '/assets', analyst, {
      Kind: 'WebApplication',
      Url: 'https://shop.example.com',
      Name: 'Shop',
    });
    expect(b.statusCode).toBe(200);
    expect(b.json().Id).toBe(a.json().Id);
  });

  it('refuses bad input with the field named, and stores nothing', async () => {
    const before = (await send('GET', '/assets', analyst)).json().TotalCount;
    const cases: [unknown, string][] = [
      [{ Kind: 'Host' }, 'identifies'],
      [{ Kind: 'Host', IpAddresses: ['999.1.1.1'] }, '/IpAddresses'],
      [{ Kind: 'Host', MacAddresses: ['zz'] }, '/MacAddresses'],
      [{ Kind: 'Host', Fqdn: 'not a name' }, '/Fqdn'],
      [{ Kind: 'WebApplication', Fqdn: 'a.example.com' }, '/Url'],
      [{ Kind: 'WebApplication', Url: 'javascript:alert(1)' }, '/Url'],
      [{ Kind: 'Router', IpAddresses: ['10.0.0.1'] }, '/Kind'],
      [{ kind: 'Host', IpAddresses: ['10.0.0.1'] }, "did you mean 'Kind'"],
      [{ Kind: 'Host', IpAddresses: ['10.0.0.1'], Criticality: 9 }, '/Criticality'],
    ];
    for (const [body, expected] of cases) {
      const res = await send('POST', '/assets', analyst, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.body).toContain(expected);
    }
    expect((await send('GET', '/assets', analyst)).json().TotalCount).toBe(before);
  });

  it('lists with filters and keyset pages', async () => {
    for (let i = 0; i < 5; i++) {
      await send('POST', '/assets', analyst, {
        Kind: 'Host',
        IpAddresses: [`10.2.0.${i + 1}`],
        Name: `lab-${i}`,
        Tags: i % 2 ? ['lab', 'odd'] : ['lab'],
        InternetFacing: i === 4,
        Criticality: i + 1,
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await send(
        'GET',
        `/assets?Tag=lab&PageSize=2${cursor ? `&Cursor=${cursor}` : ''}`,
        readOnly,
      );
      const page = res.json();
      expect(page.TotalCount).toBe(5);
      seen.push(...page.Items.map((a: { Name: string }) => a.Name));
      cursor = page.NextCursor;
    } while (cursor);
    expect(seen).toEqual(['lab-0', 'lab-1', 'lab-2', 'lab-3', 'lab-4']);
    const odd = (await send('GET', '/assets?Tag=odd', readOnly)).json();
    expect(odd.Items.map((a: { Name: string }) => a.Name)).toEqual(['lab-1', 'lab-3']);
    const exposed = (await send('GET', '/assets?InternetFacing=true&Tag=lab', readOnly)).json();
    expect(exposed.Items.map((a: { Name: string }) => a.Name)).toEqual(['lab-4']);
    const critical = (await send('GET', '/assets?CriticalityMin=4&Tag=lab', readOnly)).json();
    expect(critical.TotalCount).toBe(2);
    const search = (await send('GET', '/assets?Search=10.2.0.3', readOnly)).json();
    expect(search.Items.map((a: { Name: string }) => a.Name)).toEqual(['lab-2']);
    const percent = (await send('GET', '/assets?Search=%25', readOnly)).json();
    expect(percent.TotalCount).toBe(0);
    expect((await send('GET', '/assets?Kind=Toaster', readOnly)).statusCode).toBe(400);
    expect((await send('GET', '/assets?Cursor=nonsense', readOnly)).statusCode).toBe(400);
  });

  it('lists each asset with its open findings and their highest risk score', async () => {
    const made = (name: string, address: string) =>
      send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: [address], Name: name, Tags: ['risk'] });
    const risky = (await made('risk-a', '10.3.0.1')).json();
    const quiet = (await made('risk-b', '10.3.0.2')).json();
    const record = async (title: string, severity: string, port: number) => {
      const res = await send('POST', '/findings', analyst, {
        AssetId: risky.Id,
        Vulnerability: { Title: title, Severity: severity },
        Location: { Kind: 'Port', Port: port, Protocol: 'tcp' },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    await record('Weak SSH ciphers', 'Medium', 22);
    await record('Outdated web server', 'High', 80);
    const dismissed = await record('Remote code execution in the mail server', 'Critical', 25);
    const closed = await send('POST', `/findings/${dismissed.Id}/state`, analyst, {
      State: 'FalsePositive',
      Justification: 'The port is closed to everyone.',
    });
    expect(closed.statusCode, closed.body).toBe(200);
    const open = (await send('GET', `/findings?AssetId=${risky.Id}&State=Open`, readOnly)).json();
    const highest = Math.max(...open.Items.map((f: { RiskScore: number }) => f.RiskScore));

    const page = (await send('GET', '/assets?Tag=risk', readOnly)).json();
    expect(
      page.Items.map((a: { Id: string; OpenFindings: number; TopRisk: number | null }) => [
        a.Id,
        a.OpenFindings,
        a.TopRisk,
      ]),
    ).toEqual([
      [risky.Id, 2, highest],
      [quiet.Id, 0, null],
    ]);
    // The dismissed Critical one counts neither as open nor as the top risk.
    expect(highest).toBeLessThan(dismissed.RiskScore);
    // Another organisation's findings never count.
    const elsewhere = (await send('GET', '/assets', otherAnalyst)).json();
    expect(elsewhere.Items.every((a: { OpenFindings: number }) => a.OpenFindings === 0)).toBe(true);
  });

  it('edits ratings, owner and tags; refuses an owner from elsewhere', async () => {
    const a = (await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.3.0.1'] })).json();
    const res = await send('PATCH', `/assets/${a.Id}`, analyst, {
      FriendlyName: 'Payroll DB',
      Criticality: 5,
      Confidentiality: 5,
      Integrity: 4,
      Availability: 3,
      OwnerId: analyst.userId,
      InternetFacing: true,
      Tags: ['payroll', 'payroll', ' db '],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      FriendlyName: 'Payroll DB',
      Criticality: 5,
      Confidentiality: 5,
      OwnerId: analyst.userId,
      InternetFacing: true,
      Tags: ['db', 'payroll'],
    });
    expect(
      (await send('PATCH', `/assets/${a.Id}`, analyst, { OwnerId: otherAnalyst.userId })).statusCode,
    ).toBe(404);
    expect((await send('PATCH', `/assets/${a.Id}`, analyst, {})).statusCode).toBe(400);
    expect((await send('PATCH', `/assets/${a.Id}`, analyst, { Criticality: 0 })).statusCode).toBe(400);
    expect((await send('PATCH', `/assets/${a.Id}`, readOnly, { Criticality: 1 })).statusCode).toBe(403);
  });

  it('lets a Manager delete, not an Analyst', async () => {
    const a = (await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.4.0.1'] })).json();
    expect((await send('DELETE', `/assets/${a.Id}`, analyst)).statusCode).toBe(403);
    expect((await send('DELETE', `/assets/${a.Id}`, manager)).statusCode).toBe(204);
    expect((await send('GET', `/assets/${a.Id}`, manager)).statusCode).toBe(404);
    // Its identifiers are free again.
    expect(
      (await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.4.0.1'] })).statusCode,
    ).toBe(201);
  });

  it('keeps organisations apart: the same address is two assets, and foreign ids are 404', async () => {
    const mine = (
      await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['192.0.2.10'] })
    ).json();
    const theirs = await send('POST', '/assets', otherAnalyst, { Kind: 'Host', IpAddresses: ['192.0.2.10'] });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().Id).not.toBe(mine.Id);
    expect((await send('GET', `/assets/${mine.Id}`, otherAnalyst)).statusCode).toBe(404);
    expect((await send('PATCH', `/assets/${mine.Id}`, otherAnalyst, { Criticality: 1 })).statusCode).toBe(
      404,
    );
    const list = (await send('GET', '/assets', otherAnalyst)).json();
    expect(list.Items.map((a: { Id: string }) => a.Id)).toEqual([theirs.json().Id]);
    expect(list.TotalCount).toBe(1);
    const integration = await t.app.inject({
      method: 'GET',
      url: '/api/integration/assets',
      headers: authHeaders(otherAnalyst),
    });
    expect(integration.json().TotalCount).toBe(1);
  });

  it('exports assets as CSV', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/integration/assets?Tag=lab',
      headers: { ...authHeaders(readOnly), accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toBe(
      'Id,Kind,Name,FriendlyName,Fqdn,IpAddresses,Url,OperatingSystem,Criticality,InternetFacing,Tags,FirstSeen,LastSeen',
    );
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual(['lab-0', 'lab-1', 'lab-2', 'lab-3', 'lab-4']);
  });

  it('records the services of a host: one per port and protocol, merged when seen again', async () => {
    const host = (await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.6.0.1'] })).json();
    const ssh = {
      Port: 22,
      Protocol: 'tcp',
      Name: 'ssh',
      Product: 'OpenSSH',
      Version: '8.9p1',
      Banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10',
    };
    const first = await send('POST', `/assets/${host.Id}/services`, analyst, ssh);
    expect(first.statusCode).toBe(201);
    const again = await send('POST', `/assets/${host.Id}/services`, analyst, {
      Port: 22,
      Protocol: 'tcp',
      Version: '9.6p1',
      Cpe: 'cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({
      Id: first.json().Id,
      Product: 'OpenSSH',
      Version: '9.6p1',
      Name: 'ssh',
    });
    await send('POST', `/assets/${host.Id}/services`, analyst, {
      Port: 53,
      Protocol: 'udp',
      Name: 'domain',
      Banner: 'x'.repeat(5000),
    });
    const list = (await send('GET', `/assets/${host.Id}/services`, readOnly)).json();
    expect(list.map((v: { Port: number; Protocol: string }) => `${v.Port}/${v.Protocol}`)).toEqual([
      '22/tcp',
      '53/udp',
    ]);
    expect(list[1].Banner).toHaveLength(2048);

    for (const [body, text] of [
      [{ Port: 70000, Protocol: 'tcp' }, '/Port'],
      [{ Port: 22, Protocol: 'icmp' }, '/Protocol'],
      [{ Port: 22, Protocol: 'tcp', Cpe: 'openssh' }, '/Cpe'],
      [{ port: 22, Protocol: 'tcp' }, "did you mean 'Port'"],
    ] as const) {
      const res = await send('POST', `/assets/${host.Id}/services`, analyst, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.body).toContain(text);
    }
    expect((await send('POST', `/assets/${host.Id}/services`, readOnly, ssh)).statusCode).toBe(403);
    expect((await send('GET', `/assets/${host.Id}/services`, otherAnalyst)).statusCode).toBe(404);
    expect((await send('POST', `/assets/${host.Id}/services`, otherAnalyst, ssh)).statusCode).toBe(404);
    const web = (
      await send('POST', '/assets', analyst, { Kind: 'WebApplication', Url: 'https://svc.example.com' })
    ).json();
    expect((await send('POST', `/assets/${web.Id}/services`, analyst, ssh)).statusCode).toBe(400);
  });
});
