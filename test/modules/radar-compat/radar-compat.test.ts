import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// The calls of RADAR-COMPAT.md (existing integrations of the original service), in the integration channel.
describe.each(DB_KINDS)('original-service compatibility [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let reader: Credentials;
  let outsider: Credentials;
  let assetId: string;
  let vulnerabilityId: string;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    reader = await t.userWithKey('ReadOnly');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const { asset } = await t.services.assets.observe(ctx, {
      kind: 'Host',
      fqdn: 'mail.example.com',
      ipAddresses: ['192.0.2.25'],
      macAddresses: ['00:16:3e:00:00:25'],
      operatingSystem: 'Ubuntu 22.04',
      source: 'Nessus',
    });
    assetId = asset.id;
    await t.services.assets.update(ctx, assetId, { confidentiality: 5, integrity: 4 });
    const v = await t.services.vulnerabilities.resolve(ctx, {
      source: 'Nessus',
      ruleId: '19506',
      title: 'Exim string_format heap overflow',
      description: 'The remote mail server is affected by a heap overflow.',
      cveIds: ['CVE-2019-15846'],
      severity: 'Critical',
      cvss3Score: 9.8,
    });
    vulnerabilityId = v.id;
    await t.services.findings.record(ctx, {
      assetId,
      vulnerabilityId: v.id,
      location: { kind: 'Port', port: 25, protocol: 'tcp' },
      source: 'Nessus',
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const call = (method: 'GET' | 'POST', url: string, who: Credentials = reader, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...authHeaders(who), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  it('GET assets/any', async () => {
    expect((await call('GET', '/api/integration/assets/any')).json()).toBe(true);
    expect((await call('GET', '/api/integration/assets/any', outsider)).json()).toBe(false);
  });

  it('POST assets/withstartindex/{i}/andpagesize/{n}, any case, with or without a body', async () => {
    for (const url of [
      '/api/integration/assets/withstartindex/0/andpagesize/10',
      '/api/integration/assets/withStartIndex/0/andPageSize/10',
    ]) {
      for (const body of [undefined, {}, { SortPrimary: 'Name' }]) {
        const res = await call('POST', url, reader, body);
        expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBe(200);
        expect(res.json().Items[0]).toEqual({
          Id: assetId,
          AssetHostId: assetId,
          Hostname: 'mail',
          IpAddress: '192.0.2.25',
          FriendlyName: null,
          MacAddress: '00:16:3e:00:00:25',
          OperatingSystem: 'Ubuntu 22.04',
          DomainName: 'example.com',
        });
      }
    }
    expect(
      (await call('POST', '/api/integration/assets/withstartindex/1/andpagesize/10')).json().Items,
    ).toEqual([]);
    expect((await call('POST', '/api/integration/assets/withstartindex/0/andpagesize/0')).statusCode).toBe(
      400,
    );
    expect((await call('POST', '/api/integration/assets/withstartindex/-1/andpagesize/10')).statusCode).toBe(
      400,
    );
    expect(
      (await call('POST', '/api/integration/assets/withstartindex/0/andpagesize/10', outsider)).json().Items,
    ).toEqual([]);
  });

  it('GET assethosts/asset/{Id}', async () => {
    expect((await call('GET', `/api/integration/assethosts/asset/${assetId}`)).json()).toMatchObject({
      Confidentiality: 5,
      Integrity: 4,
      Availability: 3,
    });
    expect((await call('GET', `/api/integration/assethosts/asset/${assetId}`, outsider)).statusCode).toBe(
      404,
    );
  });

  it('POST assets/{id}/reports/latest/vulnerabilitiesandfindings/withStartIndex/{i}/andPageSize/{n}', async () => {
    const url = `/api/integration/assets/${assetId}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/50`;
    const res = await call('POST', url, reader, { ScanId: null, Findings: 'All' });
    expect(res.statusCode).toBe(200);
    expect(res.json().Items).toEqual([
      expect.objectContaining({
        PluginGuidId: vulnerabilityId,
        Name: 'Exim string_format heap overflow',
        RiskLevel: 'High',
        CVEReferences: [{ Name: 'CVE-2019-15846' }],
        Port: 25,
      }),
    ]);
    expect((await call('POST', url, outsider, {})).statusCode).toBe(404);
  });

  it('GET vulnerabilities/systemscan/{PluginGuidId}/detailed, by the id a report answers or the rule id', async () => {
    const res = await call('GET', `/api/integration/vulnerabilities/systemscan/${vulnerabilityId}/detailed`);
    expect(res.json()).toEqual({
      Name: 'Exim string_format heap overflow',
      RiskLevel: 'High',
      VulnerabilityCategory: 'Network',
      Synopsis: 'The remote mail server is affected by a heap overflow.',
      CVEReferences: [{ Name: 'CVE-2019-15846' }],
      CVSSBaseScore: 9.8,
      Solution: null,
    });
    expect((await call('GET', '/api/integration/vulnerabilities/systemscan/19506/detailed')).json()).toEqual(
      res.json(),
    );
    expect(
      (await call('GET', '/api/integration/vulnerabilities/systemscan/19506/detailed', outsider)).statusCode,
    ).toBe(404);
    expect((await call('GET', '/api/integration/vulnerabilities/systemscan/99999/detailed')).statusCode).toBe(
      404,
    );
  });

  it('serves these in the latest channel too, as the original does', async () => {
    expect((await call('GET', '/api/latest/assets/any')).json()).toBe(true);
    expect(
      (await call('POST', '/api/latest/assets/withstartindex/0/andpagesize/10')).json().Items,
    ).toHaveLength(1);
  });

  it('lists and shows vulnerabilities in both channels, per organisation', async () => {
    const list = (await call('GET', '/api/latest/vulnerabilities?Cve=cve-2019-15846')).json();
    expect(list.Items.map((v: { Id: string }) => v.Id)).toEqual([vulnerabilityId]);
    const one = (await call('GET', `/api/integration/vulnerabilities/${vulnerabilityId}`)).json();
    expect(one).toMatchObject({ PluginGuidId: '19506', CVSSBaseScore: 9.8, Severity: 'Critical' });
    expect((await call('GET', `/api/latest/vulnerabilities/${vulnerabilityId}`, outsider)).statusCode).toBe(
      404,
    );
    expect((await call('GET', '/api/latest/vulnerabilities', outsider)).json().Items).toEqual([]);
    expect((await call('GET', '/api/latest/vulnerabilities?Cve=bad')).statusCode).toBe(400);
  });
});
