import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

/**
 * Habits of real client scripts of the original service (RADAR-COMPAT.md, "How real clients
 * actually send these calls"), each sent exactly as such a script sends it: Python `requests`
 * with `Content-Type: application/json` on every call, `json=""` on paging calls, ids pasted
 * into paths as they come. Those clients treat every answer but 200 as fatal.
 */
describe.each(DB_KINDS)('what real clients of the original send [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let reader: Credentials;
  let analyst: Credentials;
  let outsider: Credentials;
  let host: string;
  let addressless: string;
  let webApp: string;
  const ctx = () => ({ organizationId: t.org.id, actor: { type: 'system' as const, id: null } });

  /** A request as `requests` sends it: the JSON content type always, the body bytes as given. */
  const send = (method: 'GET' | 'POST', url: string, payload?: string, who: Credentials = reader) =>
    t.app.inject({
      method,
      url,
      headers: { ...authHeaders(who), 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload }),
    });
  const reportPath = (assetId: string, pageSize: number | string = 100) =>
    `/assets/${assetId}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/${pageSize}`;
  const detailedPath = (pluginGuidId: string, scan = 'systemscan') =>
    `/vulnerabilities/${scan}/${pluginGuidId}/detailed`;
  const report = (assetId: string, pageSize: number | string = 100, channel = 'integration') =>
    `/api/${channel}${reportPath(assetId, pageSize)}`;
  const detailed = (pluginGuidId: string, scan = 'systemscan', channel = 'integration') =>
    `/api/${channel}${detailedPath(pluginGuidId, scan)}`;

  /** A vulnerability of the test organisation, with a finding at `location` unless it is null. */
  const vulnerabilityWithFinding = async (
    ruleId: string,
    location: Parameters<TestApp['services']['findings']['record']>[1]['location'] | null,
    extra: { cveIds?: string[]; cvss3Score?: number; assetId?: string } = {},
  ) => {
    const v = await t.services.vulnerabilities.resolve(ctx(), {
      source: 'Nessus',
      ruleId,
      title: `Check ${ruleId}`,
      severity: 'High',
      cveIds: extra.cveIds,
      cvss3Score: extra.cvss3Score,
    });
    if (location)
      await t.services.findings.record(ctx(), {
        assetId: extra.assetId ?? host,
        vulnerabilityId: v.id,
        location,
        source: 'Nessus',
      });
    return v;
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    reader = await t.userWithKey('ReadOnly');
    analyst = await t.userWithKey('Analyst');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    host = (
      await t.services.assets.observe(ctx(), {
        kind: 'Host',
        fqdn: 'db.quirks.example',
        ipAddresses: ['192.0.2.40'],
        source: 'Nessus',
      })
    ).asset.id;
    addressless = (
      await t.services.assets.observe(ctx(), {
        kind: 'Host',
        fqdn: 'noaddress.quirks.example',
        source: 'Nessus',
      })
    ).asset.id;
    webApp = (
      await t.services.assets.observe(ctx(), {
        kind: 'WebApplication',
        url: 'https://shop.quirks.example/',
        source: 'ZAP',
      })
    ).asset.id;
    await t.services.assets.update(ctx(), host, { confidentiality: 5 });
    await vulnerabilityWithFinding(
      '70001',
      { kind: 'Port', port: 5432, protocol: 'tcp' },
      { cvss3Score: 9.8 },
    );
    for (const [name, category] of [
      ['openssl', 'OsPackage'],
      ['Ubuntu', 'OperatingSystem'],
      ['nginx', 'Application'],
    ] as const) {
      const res = await send(
        'POST',
        `/api/latest/assets/${host}/software`,
        JSON.stringify({ Name: name, Version: '1.0', Category: category }),
        analyst,
      );
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('treats a "" body (requests’ json="") on paging calls as no body', async () => {
    const assets = await send('POST', '/api/integration/assets/withstartindex/0/andpagesize/100', '""');
    expect(assets.statusCode, assets.body).toBe(200);
    expect(assets.json().Items.map((a: { Id: string }) => a.Id)).toContain(host);
    const findings = await send('POST', report(host), '""');
    expect(findings.statusCode, findings.body).toBe(200);
    expect(findings.json().Items).toHaveLength(1);

    // Only the empty string stands for no body: other strings, arrays and broken JSON stay errors.
    for (const payload of ['"x"', '" "', '[]', '""""', '"']) {
      const res = await send('POST', '/api/integration/assets/withstartindex/0/andpagesize/100', payload);
      expect(res.statusCode, payload).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    // Installed software needs AssetHostId, so "" names no asset to list.
    const software = await send(
      'POST',
      '/api/integration/assets/installedsoftware/withStartIndex/0/andPageSize/100',
      '""',
    );
    expect(software.statusCode).toBe(400);
  });

  it('accepts andPageSize/1000 on installed software, findings reports and assets', async () => {
    const software = await send(
      'POST',
      '/api/integration/assets/installedsoftware/withStartIndex/0/andPageSize/1000',
      JSON.stringify({ AssetHostId: host, categoryName: 'assets/installedsoftware', SortPrimary: 'Name' }),
    );
    expect(software.statusCode, software.body).toBe(200);
    expect(software.json().Items).toHaveLength(3);
    const findings = await send(
      'POST',
      report(host, 1000),
      JSON.stringify({ ScanId: null, Findings: 'All' }),
    );
    expect(findings.statusCode, findings.body).toBe(200);
    const assets = await send('POST', '/api/integration/assets/withstartindex/0/andpagesize/1000', '""');
    expect(assets.statusCode, assets.body).toBe(200);

    for (const size of ['1001', '0', '-1', 'x']) {
      const res = await send('POST', `/api/integration/assets/withstartindex/0/andpagesize/${size}`, '""');
      expect(res.statusCode, size).toBe(400);
      expect((await send('POST', report(host, size), '""')).statusCode, size).toBe(400);
    }
  });

  it('resolves an id with a leading space in the path (assethosts/asset/%20{Id})', async () => {
    const res = await send('GET', `/api/integration/assethosts/asset/%20${host}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ Id: host, Confidentiality: 5, Integrity: 3, Availability: 3 });
    const spacedReport = await send('POST', report(`%20${host}`), '""');
    expect(spacedReport.statusCode, spacedReport.body).toBe(200);
    expect(spacedReport.json().Items).toHaveLength(1);

    // Trimmed, the id must still be a UUID of the caller's organisation.
    expect(
      (await send('GET', `/api/integration/assethosts/asset/%20${host}`, undefined, outsider)).statusCode,
    ).toBe(404);
    for (const bad of ['%20', '%20not-a-uuid', `%20${host}x`, `${host.slice(0, 8)}%20${host.slice(9)}`]) {
      const res = await send('GET', `/api/integration/assethosts/asset/${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('reads categoryName "assets/installedsoftware" as every category, and still filters by a real one', async () => {
    const list = async (categoryName: string) => {
      const res = await send(
        'POST',
        '/api/integration/assets/installedsoftware/withStartIndex/0/andPageSize/1000',
        JSON.stringify({ AssetHostId: host, categoryName, SortPrimary: 'Name' }),
      );
      expect(res.statusCode, res.body).toBe(200);
      return res.json().Items.map((s: { Name: string }) => s.Name);
    };
    expect(await list('assets/installedsoftware')).toEqual(['nginx', 'openssl', 'Ubuntu']);
    expect(await list('Assets/InstalledSoftware')).toEqual(['nginx', 'openssl', 'Ubuntu']);
    expect(await list('OsPackage')).toEqual(['openssl']);
    expect(await list('assets/other')).toEqual([]);
  });

  it('answers the same calls under /api/latest/ as under /api/integration/', async () => {
    const v = await vulnerabilityWithFinding('70002', { kind: 'Port', port: 22, protocol: 'tcp' });
    const calls: [method: 'GET' | 'POST', path: string, payload?: string][] = [
      ['GET', '/assets/any'],
      ['POST', '/assets/withstartindex/0/andpagesize/100', '""'],
      ['POST', '/assets/withStartIndex/0/andPageSize/100'],
      ['GET', `/assethosts/asset/%20${host}`],
      ['POST', reportPath(host, 1000), JSON.stringify({ ScanId: null, Findings: 'All' })],
      [
        'POST',
        '/assets/installedsoftware/withStartIndex/0/andPageSize/1000',
        JSON.stringify({ AssetHostId: host, categoryName: 'assets/installedsoftware', SortPrimary: 'Name' }),
      ],
      ['GET', detailedPath(v.id)],
      ['GET', detailedPath(v.id, 'webscan')],
    ];
    for (const [method, path, payload] of calls) {
      const integration = await send(method, `/api/integration${path}`, payload);
      const latest = await send(method, `/api/latest${path}`, payload);
      expect(integration.statusCode, `integration ${path}`).toBe(200);
      expect(latest.statusCode, `latest ${path}: ${latest.body}`).toBe(200);
      expect(latest.json(), path).toEqual(integration.json());
    }
    // Both channels keep the organisations apart and check their input alike.
    for (const channel of ['latest', 'integration']) {
      expect(
        (await send('GET', `/api/${channel}/assethosts/asset/${host}`, undefined, outsider)).statusCode,
      ).toBe(404);
      expect((await send('POST', report(host, 10, channel), '""', outsider)).statusCode).toBe(404);
      expect((await send('GET', detailed(v.id, 'systemscan', channel), undefined, outsider)).statusCode).toBe(
        404,
      );
      expect((await send('GET', `/api/${channel}/assethosts/asset/nope`)).statusCode).toBe(400);
    }
  });

  it('lists as hosts only assets with an address, each with its IpAddress as a string', async () => {
    const res = await send('POST', '/api/integration/assets/withstartindex/0/andpagesize/1000', '""');
    expect(res.statusCode).toBe(200);
    const items: { Id: string; IpAddress: unknown }[] = res.json().Items;
    expect(items.map((a) => a.Id)).toEqual([host]);
    expect(res.json().TotalCount).toBe(1);
    for (const a of items) expect(isIP(a.IpAddress as string), JSON.stringify(a)).not.toBe(0);
    // The address-less assets are still there, and still answer by id.
    expect((await send('GET', `/api/latest/assets/${addressless}`)).statusCode).toBe(200);
    expect((await send('GET', `/api/integration/assethosts/asset/${webApp}`)).statusCode).toBe(200);

    // An organisation whose only asset has no address has no host to list.
    const other = await t.services.organizations.create('Hostless');
    const otherReader = await t.userWithKey('ReadOnly', other);
    await t.services.assets.observe(
      { organizationId: other.id, actor: { type: 'system', id: null } },
      { kind: 'Host', fqdn: 'only.hostless.example', source: 'Nessus' },
    );
    const empty = await send(
      'POST',
      '/api/integration/assets/withstartindex/0/andpagesize/100',
      '""',
      otherReader,
    );
    expect(empty.json()).toEqual({ Items: [], TotalCount: 0 });
    expect((await send('GET', '/api/integration/assets/any', undefined, otherReader)).json()).toBe(false);
  });

  it('names the category of the check in VulnerabilityCategory, never the tool', async () => {
    const cases: [string, Parameters<typeof vulnerabilityWithFinding>[1], string, string?][] = [
      ['71001', { kind: 'Port', port: 443, protocol: 'tcp' }, 'Network'],
      ['71002', { kind: 'Url', url: 'https://shop.quirks.example/login' }, 'Web', webApp],
      ['71003', { kind: 'Package', packageName: 'openssl', packageVersion: '1.0' }, 'Software'],
      ['71004', { kind: 'File', filePath: 'app/settings.py', line: 3 }, 'Code'],
      ['71005', { kind: 'None' }, 'Generic'],
      ['71006', null, 'Generic'],
    ];
    for (const [ruleId, location, category, assetId] of cases) {
      await vulnerabilityWithFinding(ruleId, location, { assetId });
      const res = await send('GET', detailed(ruleId));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().VulnerabilityCategory, ruleId).toBe(category);
      expect((await send('GET', detailed(ruleId, 'webscan'))).json().VulnerabilityCategory, ruleId).toBe(
        category,
      );
    }
  });

  it('answers CVSSBaseScore as a number, "" when there is none, and the CVSS v2 score when only v2 is known', async () => {
    const score = async (pluginGuidId: string, scan = 'systemscan') => {
      const res = await send('GET', detailed(pluginGuidId, scan));
      expect(res.statusCode, res.body).toBe(200);
      return res.json().CVSSBaseScore;
    };
    expect(await score('70001')).toBe(9.8);
    expect(await score('70001', 'webscan')).toBe(9.8);
    await vulnerabilityWithFinding('72001', { kind: 'Port', port: 80, protocol: 'tcp' });
    expect(await score('72001')).toBe('');
    expect(await score('72001', 'webscan')).toBe('');

    // CVE-2012-2122 has only a CVSS v2 analysis in NVD (5.1).
    await vulnerabilityWithFinding(
      '72002',
      { kind: 'Port', port: 3306, protocol: 'tcp' },
      { cveIds: ['CVE-2012-2122'] },
    );
    expect(await score('72002')).toBe('');
    const load = await t.services.intel.loadFile('test/fixtures/intel/nvd/CVE-2012-2122.json');
    expect(load.state).toBe('Completed');
    expect(await score('72002')).toBe(5.1);
  });

  it('resolves every PluginGuidId of the findings reports to its own vulnerability, for every scanner', async () => {
    const fixtures = [
      'test/fixtures/tenable/nessus/nessus_with_cvssv3.nessus',
      'test/fixtures/zap/some_2.9.0.xml',
      'test/fixtures/nikto/nikto-output.xml', // several checks share one Nikto id
      'test/fixtures/sarif/codeQL-output.sarif', // rule ids with slashes (py/sql-injection)
    ];
    for (const file of fixtures) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/latest/imports',
        headers: { ...authHeaders(analyst), 'content-type': 'application/octet-stream' },
        payload: readFileSync(file),
      });
      expect(res.statusCode, file).toBe(202);
      await t.services.imports.settled(res.json().Id);
      expect((await send('GET', `/api/latest/imports/${res.json().Id}`)).json().State, file).toBe(
        'Completed',
      );
    }
    // The demo estate: findings entered without a scanner rule id.
    const demo = await send('POST', '/api/latest/demo', '{}', t.admin);
    expect(demo.statusCode, demo.body).toBe(200);

    const assets = (await send('GET', '/api/latest/assets?PageSize=500')).json().Items as { Id: string }[];
    let resolved = 0;
    for (const asset of assets) {
      const res = await send(
        'POST',
        report(asset.Id, 1000),
        JSON.stringify({ ScanId: null, Findings: 'All' }),
      );
      expect(res.statusCode).toBe(200);
      const findings = (await send('GET', `/api/latest/findings?AssetId=${asset.Id}&PageSize=500`)).json()
        .Items as {
        Id: string;
        VulnerabilityId: string;
      }[];
      const vulnerabilityOf = new Map(findings.map((f) => [f.Id, f.VulnerabilityId]));
      for (const item of res.json().Items as { Id: string; PluginGuidId: string }[]) {
        expect(typeof item.PluginGuidId).toBe('string');
        const expected = (
          await send('GET', `/api/latest/vulnerabilities/${vulnerabilityOf.get(item.Id)}`)
        ).json();
        // Clients paste the value into the path as it is, without encoding it.
        for (const scan of ['systemscan', 'webscan']) {
          const res = await send('GET', detailed(item.PluginGuidId, scan));
          expect(res.statusCode, `${scan} ${item.PluginGuidId} (${expected.Title})`).toBe(200);
          expect(res.json().Name, item.PluginGuidId).toBe(expected.Title);
          expect(res.json().CVEReferences).toEqual(expected.CVEReferences.map((Name: string) => ({ Name })));
        }
        resolved++;
      }
    }
    expect(resolved).toBeGreaterThan(150);
    // An id nobody has is still a 404 problem, and another organisation's is too.
    const unknown = await send('GET', detailed('00000000-0000-7000-8000-000000000000'));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers POST things/withStartIndex/{i}/andPageSize/{n} with the hosts Rampart knows, paged, in both channels', async () => {
    // An organisation of its own, so that the list is exactly what is made here.
    const org = await t.services.organizations.create('Endpoints');
    const who = await t.userWithKey('ReadOnly', org);
    const at = { organizationId: org.id, actor: { type: 'system' as const, id: null } };
    const workstation = await t.services.assets.observe(at, {
      kind: 'Host',
      fqdn: 'ws-17.corp.example',
      ipAddresses: ['192.0.2.71'],
      operatingSystem: 'Windows 11',
      source: 'Nessus',
    });
    await t.services.assets.update(at, workstation.asset.id, { tags: ['Workstations', 'Finance'] });
    await t.services.assets.observe(at, {
      kind: 'Host',
      fqdn: 'build.corp.example',
      ipAddresses: ['192.0.2.72', '192.0.2.73'],
      source: 'Nessus',
    });
    // Neither an address-less host nor a web application is a thing with an address.
    await t.services.assets.observe(at, { kind: 'Host', fqdn: 'laptop.corp.example', source: 'Nessus' });
    await t.services.assets.observe(at, {
      kind: 'WebApplication',
      url: 'https://intranet.corp.example/',
      source: 'ZAP',
    });

    const expected = [
      { Hostname: 'build', IPAddress: '192.0.2.72', AdGroupName: null, OperatingSystem: null },
      {
        Hostname: 'ws-17',
        IPAddress: '192.0.2.71',
        AdGroupName: 'Finance, Workstations',
        OperatingSystem: 'Windows 11',
      },
    ];
    for (const channel of ['integration', 'latest']) {
      const all = await send('POST', `/api/${channel}/things/withStartIndex/0/andPageSize/1000`, '""', who);
      expect(all.statusCode, all.body).toBe(200);
      expect(all.json()).toEqual({ Items: expected, TotalCount: 2 });
      const second = await send(
        'POST',
        `/api/${channel}/things/withstartindex/1/andpagesize/1`,
        undefined,
        who,
      );
      expect(second.statusCode, second.body).toBe(200);
      expect(second.json()).toEqual({ Items: [expected[1]], TotalCount: 2 });
      const withFilters = await send(
        'POST',
        `/api/${channel}/things/withStartIndex/0/andPageSize/10`,
        '{"SortPrimary":"Hostname"}',
        who,
      );
      expect(withFilters.json().Items).toEqual(expected);
    }
    // Another organisation's reader sees none of them.
    const outside = await send(
      'POST',
      '/api/integration/things/withStartIndex/0/andPageSize/10',
      '""',
      outsider,
    );
    expect(outside.json().Items.map((i: { Hostname: string }) => i.Hostname)).not.toContain('ws-17');
    // Bad paging is a 400 naming the parameter.
    for (const [path, field] of [
      ['withStartIndex/0/andPageSize/0', 'PageSize'],
      ['withStartIndex/0/andPageSize/1001', 'PageSize'],
      ['withStartIndex/-1/andPageSize/10', 'StartIndex'],
    ]) {
      const bad = await send('POST', `/api/integration/things/${path}`, '""', who);
      expect(bad.statusCode, path).toBe(400);
      expect(bad.body).toContain(field);
    }
    expect(
      (await send('POST', '/api/integration/things/withStartIndex/0/andPageSize/10', '42', who)).statusCode,
    ).toBe(400);
  });
});
