import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { estate, type NessusHost, nessusReport } from './nessus-report.js';

describe.each(DB_KINDS)('scanner report imports [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let manager: Credentials;
  let reader: Credentials;
  let outsider: Credentials;

  const json = (method: 'GET' | 'POST', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** Sends a report and waits for its import to end; answers the final Import. */
  const upload = async (
    report: string | Buffer,
    query = '',
    who: Credentials = analyst,
    contentType = 'application/xml',
  ) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/latest/imports${query}`,
      headers: { ...authHeaders(who), 'content-type': contentType },
      payload: report,
    });
    if (res.statusCode !== 202) return { status: res.statusCode, body: res.json() };
    expect(res.headers.location).toBe(`/api/latest/imports/${res.json().Id}`);
    await t.services.imports.settled(res.json().Id);
    const done = await json('GET', `/imports/${res.json().Id}`, who);
    return { status: 202, body: done.json() };
  };

  const findings = async (query = '') =>
    (await json('GET', `/findings?PageSize=500&IncludeTotal=true${query}`, reader)).json();
  const counts = async () => ({
    findings: (await findings()).TotalCount as number,
    assets: (await json('GET', '/assets?PageSize=1', reader)).json().TotalCount as number,
  });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_IMPORT_MAX_BYTES: String(2 * 1024 * 1024) } });
    analyst = await t.userWithKey('Analyst');
    manager = await t.userWithKey('Manager');
    reader = await t.userWithKey('ReadOnly');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const hosts: NessusHost[] = [
    {
      ip: '10.40.0.1',
      fqdn: 'web-1.example.com',
      os: 'Ubuntu 22.04',
      items: [
        {
          plugin: '158900',
          name: 'Apache 2.4.x < 2.4.51 Path Traversal',
          cve: ['CVE-2021-42013'],
          severity: 4,
        },
        { plugin: '187315', name: 'OpenSSH < 9.6 Terrapin', port: 22, cve: ['CVE-2023-48795'], severity: 2 },
        { plugin: '104743', name: 'TLS Version 1.0 Protocol Detection', severity: 2 },
      ],
    },
    {
      ip: '10.40.0.2',
      items: [{ plugin: '104743', name: 'TLS Version 1.0 Protocol Detection', severity: 2 }],
    },
  ];

  it('imports a Nessus report: assets, services and findings, counted', async () => {
    const { status, body } = await upload(nessusReport(hosts), '?FileName=weekly.nessus');
    expect(status).toBe(202);
    expect(body).toMatchObject({
      State: 'Completed',
      Format: 'nessus',
      FileName: 'weekly.nessus',
      Error: null,
      Counts: { New: 4, Reopened: 0, Fixed: 0, Unchanged: 0, AssetsCreated: 2, AssetsUpdated: 0 },
    });
    expect(body.FileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(body.FormatConfidence).toBeGreaterThanOrEqual(0.5);
    const list = await findings();
    expect(list.TotalCount).toBe(4);
    const apache = list.Items.find((f: { Title: string }) => f.Title.startsWith('Apache'));
    expect(apache).toMatchObject({
      Severity: 'Critical',
      State: 'Open',
      Source: 'Nessus',
      CVEReferences: ['CVE-2021-42013'],
      PluginGuidId: '158900',
      Location: { Kind: 'Port', Port: 443, Protocol: 'tcp' },
    });
    const web = (await json('GET', `/assets/${apache.AssetId}`, reader)).json();
    expect(web).toMatchObject({ Fqdn: 'web-1.example.com', OperatingSystem: 'Ubuntu 22.04' });
    const services = (await json('GET', `/assets/${apache.AssetId}/services`, reader)).json();
    expect(services.map((s: { Port: number }) => s.Port).sort()).toEqual([22, 443]);
    const history = (await json('GET', '/imports', reader)).json();
    expect(history.Items[0]).toMatchObject({ Id: body.Id, State: 'Completed' });
  });

  it('re-imports the same file as all Unchanged', async () => {
    const before = await counts();
    const { body } = await upload(nessusReport(hosts));
    expect(body.Counts).toMatchObject({
      New: 0,
      Reopened: 0,
      Fixed: 0,
      Unchanged: 4,
      AssetsCreated: 0,
      AssetsUpdated: 2,
    });
    expect(await counts()).toEqual(before);
  });

  it('fixes what a re-import no longer shows, reopens what comes back, keeps people’s decisions', async () => {
    const terrapin = (await findings('&Search=Terrapin')).Items[0];
    const tls = (await findings('&Search=TLS')).Items.find(
      (f: { AssetId: string }) => f.AssetId !== terrapin.AssetId,
    );
    const fp = await json('POST', `/findings/${tls.Id}/state`, manager, {
      State: 'FalsePositive',
      Justification: 'TLS 1.0 is disabled by the load balancer',
    });
    expect(fp.statusCode).toBe(200);
    const ticket = (
      await json('POST', '/tickets', analyst, { Title: 'Terrapin', FindingIds: [terrapin.Id] })
    ).json();

    // The next scan no longer shows Terrapin on web-1, nor TLS 1.0 on the second host.
    const fixedHosts = [
      { ...hosts[0]!, items: hosts[0]!.items.filter((i) => i.plugin !== '187315') },
      {
        ...hosts[1]!,
        items: [{ plugin: '57582', name: 'SSL Self-Signed Certificate', severity: 2 as const }],
      },
    ];
    const second = (await upload(nessusReport(fixedHosts))).body;
    expect(second.Counts).toMatchObject({ New: 1, Fixed: 1, Reopened: 0, Unchanged: 2 });
    expect((await json('GET', `/findings/${terrapin.Id}`, reader)).json()).toMatchObject({ State: 'Fixed' });
    expect((await json('GET', `/findings/${tls.Id}`, reader)).json()).toMatchObject({
      State: 'FalsePositive',
    });
    expect((await json('GET', `/tickets/${ticket.Id}`, reader)).json().State).toBe('Resolved');
    const fixedByImport = await findings(`&ImportId=${second.Id}&ImportChange=Fixed`);
    expect(fixedByImport.Items.map((f: { Id: string }) => f.Id)).toEqual([terrapin.Id]);
    const newByImport = await findings(`&ImportId=${second.Id}&ImportChange=New`);
    expect(newByImport.Items.map((f: { Title: string }) => f.Title)).toEqual(['SSL Self-Signed Certificate']);
    expect((await findings(`&ImportId=${second.Id}`)).TotalCount).toBe(2);
    expect((await json('GET', '/findings?ImportChange=Sideways', reader)).statusCode).toBe(400);

    const third = (await upload(nessusReport(hosts))).body;
    expect(third.Counts).toMatchObject({ Reopened: 1, Fixed: 1, New: 0 });
    const reopened = (await json('GET', `/findings/${terrapin.Id}`, reader)).json();
    expect(reopened.State).toBe('Reopened');
    expect(
      (await findings(`&ImportId=${third.Id}&ImportChange=Reopened`)).Items.map((f: { Id: string }) => f.Id),
    ).toEqual([terrapin.Id]);
    expect(reopened.Events.map((e: { ToState: string }) => e.ToState)).toEqual(
      expect.arrayContaining(['Open', 'Fixed', 'Reopened']),
    );
    expect((await json('GET', `/tickets/${ticket.Id}`, reader)).json().State).toBe('Reopened');
    expect((await json('GET', `/findings/${tls.Id}`, reader)).json()).toMatchObject({
      State: 'FalsePositive',
    });
  });

  it('merges exact duplicates inside one report', async () => {
    const twice = [{ ...hosts[1]!, items: [...hosts[1]!.items, ...hosts[1]!.items] }];
    const { body } = await upload(nessusReport(twice));
    expect(body.Counts).toMatchObject({ Findings: 2, DuplicatesMerged: 1, New: 0 });
  });

  it('applies an explicit scope across assets: findings of the scope missing from the report become Fixed', async () => {
    const a = { ip: '10.41.0.1', items: [{ plugin: '900001', name: 'Scoped A' }] };
    const b = { ip: '10.41.0.2', items: [{ plugin: '900002', name: 'Scoped B' }] };
    expect((await upload(nessusReport([a, b]), '?ScopeName=dmz-weekly')).body.Counts.New).toBe(2);
    // Without the scope, a scan of host b alone leaves host a's findings alone.
    expect((await upload(nessusReport([b]))).body.Counts).toMatchObject({ Fixed: 0, Unchanged: 1 });
    // With it, host a is in the scope and its finding was not seen again.
    const scoped = (await upload(nessusReport([b]), '?ScopeName=dmz-weekly')).body;
    expect(scoped.Counts).toMatchObject({ Fixed: 1, Unchanged: 1 });
    expect((await findings('&Search=Scoped%20A')).Items[0].State).toBe('Fixed');
  });

  it('accepts a gzipped report and a multipart form', async () => {
    const report = nessusReport([
      { ip: '10.42.0.1', items: [{ plugin: '900100', name: 'Gzipped finding' }] },
    ]);
    const gz = await upload(gzipSync(report), '', analyst, 'application/octet-stream');
    expect(gz.body).toMatchObject({ State: 'Completed', Counts: { New: 1 } });
    const boundary = '----rampart-test';
    const form = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.nessus"\r\nContent-Type: application/xml\r\n\r\n${report}\r\n--${boundary}--\r\n`,
    );
    const mp = await upload(form, '', analyst, `multipart/form-data; boundary=${boundary}`);
    expect(mp.body).toMatchObject({ State: 'Completed', FileName: 'scan.nessus', Counts: { Unchanged: 1 } });
  });

  it('leaves nothing behind when a report breaks half-way, and says where', async () => {
    const before = await counts();
    const whole = nessusReport(estate(3, 5).map((h) => ({ ...h, ip: h.ip.replace('10.50', '10.43') })));
    const cut = whole.slice(0, whole.lastIndexOf('<ReportHost') + 60);
    const { body } = await upload(cut);
    expect(body.State).toBe('Failed');
    expect(body.Error).toMatch(/line \d+, column \d+/);
    expect(await counts()).toEqual(before);
  });

  it('says where a JSON report breaks', async () => {
    const before = await counts();
    const broken =
      '{"SchemaVersion": 2, "ArtifactName": "alpine:3.18", "ArtifactType": "container_image",\n"Results": [{"Target": "alpine", "Vulnerabilities": [\n  {"VulnerabilityID": "CVE-2023-5363", "PkgName": "openssl",, "Severity": "HIGH"}]}]}';
    const { body } = await upload(broken, '?Format=trivy', analyst, 'application/json');
    expect(body.State).toBe('Failed');
    expect(body.Error).toMatch(/^Not valid JSON.*\(line 3, column \d+\)$/);
    expect(await counts()).toEqual(before);
  });

  it('refuses hostile XML and stores nothing', async () => {
    const before = await counts();
    const xxe = `<?xml version="1.0"?><!DOCTYPE NessusClientData_v2 [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<NessusClientData_v2><Report name="x"><ReportHost name="10.44.0.1"><HostProperties><tag name="host-ip">&xxe;</tag></HostProperties></ReportHost></Report></NessusClientData_v2>`;
    const laughs = `<?xml version="1.0"?><!DOCTYPE NessusClientData_v2 [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<NessusClientData_v2><Report name="&c;"></Report></NessusClientData_v2>`;
    for (const hostile of [xxe, laughs]) {
      const { body } = await upload(hostile, '?Format=nessus');
      expect(body.State).toBe('Failed');
      expect(body.Error).toMatch(/DTD/);
      expect(body.Error).not.toContain('root:');
    }
    expect(await counts()).toEqual(before);
  });

  it('refuses what it cannot read before queueing: unknown formats, empty bodies, oversized and bomb uploads', async () => {
    const unknown = await upload('just some text\nthat is no report\n', '', analyst, 'text/plain');
    expect(unknown.status).toBe(422);
    expect(unknown.body.type).toMatch(/unknown-report-format$/);
    expect(unknown.body.formats).toEqual(expect.arrayContaining(['nessus', 'nmap', 'trivy']));
    const named = await upload(nessusReport(hosts), '?Format=excel');
    expect(named.status).toBe(422);
    expect(named.body.detail).toContain('nessus');
    expect((await upload('', '', analyst, 'application/xml')).status).toBe(400);
    const big = await upload(Buffer.alloc(3 * 1024 * 1024, 32), '', analyst, 'application/octet-stream');
    expect(big.status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 32));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const bombed = await upload(bomb, '', analyst, 'application/octet-stream');
    expect(bombed.status).toBe(413);
    expect(bombed.body.detail).toMatch(/decompresses/);
    const badQuery = await upload(nessusReport(hosts), '?Scope=x');
    expect(badQuery.status).toBe(400);
    expect((await upload(nessusReport(hosts), '', reader)).status).toBe(403);
  });

  it('keeps imports to their organisation', async () => {
    const mine = (await json('GET', '/imports?PageSize=1', reader)).json().Items[0];
    expect((await json('GET', `/imports/${mine.Id}`, outsider)).statusCode).toBe(404);
    expect((await json('GET', '/imports', outsider)).json().TotalCount).toBe(0);
    const theirs = await upload(nessusReport(hosts), '', outsider);
    expect(theirs.body.Counts).toMatchObject({ New: 4, AssetsCreated: 2 });
    expect((await json('GET', `/imports/${theirs.body.Id}`, reader)).statusCode).toBe(404);
  });

  it('lists the formats it reads', async () => {
    const formats = (await json('GET', '/imports/formats', reader)).json();
    expect(formats.map((f: { Format: string }) => f.Format)).toEqual(
      expect.arrayContaining(['nessus', 'nmap']),
    );
  });
});
