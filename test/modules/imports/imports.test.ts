import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../../src/importers/index.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { fixturePath } from '../../importers/helpers.js';
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
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_IMPORT_MAX_BYTES: String(2 * 1024 * 1024) },
    });
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
      AssetsUpdated: 0,
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

  it('fails a report that breaks after batches were staged as parsing it here would, leaving nothing staged', async () => {
    const before = await counts();
    // 40 hosts of 30 items: past the first staged batch of 1,000 records before the break.
    const whole = nessusReport(estate(40, 30).map((h) => ({ ...h, ip: h.ip.replace('10.50', '10.42') })));
    const cut = whole.slice(0, whole.lastIndexOf('<ReportHost') + 60);
    const here = await (async () => {
      const parse = defaultRegistry()
        .byFormat('nessus')!
        .parse(Readable.from([cut]), { warn: () => {}, maxEvidenceChars: 65_536, maxFieldChars: 32_768 });
      let read = 0;
      try {
        for await (const _ of parse) read += 1;
      } catch (error) {
        return { read, message: (error as Error).message };
      }
      throw new Error('the cut report parsed');
    })();
    expect(here.read).toBeGreaterThan(1000);
    const { body } = await upload(cut);
    expect(body.State).toBe('Failed');
    expect(body.Error).toBe(here.message);
    expect(body.Counts.Records).toBe(here.read);
    expect(await counts()).toEqual(before);
    const db = tdb.database.db;
    for (const table of [
      'import_findings',
      'import_vulnerabilities',
      'import_assets',
      'import_services',
    ] as const) {
      const staged = await db
        .selectFrom(table)
        .select(db.fn.countAll<number>().as('n'))
        .where('import_id', '=', body.Id)
        .executeTakeFirstOrThrow();
      expect(Number(staged.n), table).toBe(0);
    }
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

  // Every known asset of a re-import used to count as updated (7 of 7 here).
  it('counts as updated only the assets a re-import changed', async () => {
    const qualys = readFileSync(fixturePath('qualys/Qualys_Sample_Report.csv'));
    const first = (await upload(qualys, '', analyst, 'text/csv')).body;
    expect(first).toMatchObject({ State: 'Completed', Format: 'qualys' });
    expect(first.Counts.AssetsCreated).toBeGreaterThan(1);
    const again = (await upload(qualys, '', analyst, 'text/csv')).body;
    expect(again.Counts).toMatchObject({ AssetsCreated: 0, AssetsUpdated: 0, New: 0 });
    // One host with a new operating system: one asset updated, the others not.
    const text = qualys.toString('utf8');
    const upgraded = text.replace(
      '"Windows Server 2016 Datacenter 64 bit Edition Version 1607"',
      '"Windows Server 2019 Datacenter 64 bit Edition Version 1809"',
    );
    expect(upgraded).not.toBe(text);
    const changed = (await upload(upgraded, '', analyst, 'text/csv')).body;
    expect(changed.Counts).toMatchObject({ AssetsCreated: 0, AssetsUpdated: 1 });
    expect((await upload(upgraded, '', analyst, 'text/csv')).body.Counts.AssetsUpdated).toBe(0);
    // A host whose address is not one is kept by its names, and the address is named.
    const broken = upgraded.replaceAll('"10.98.57.180"', '"10.98.57.1800"');
    const kept = (await upload(broken, '', analyst, 'text/csv')).body;
    expect(kept.Counts).toMatchObject({ Skipped: 0, AssetsCreated: 0 });
    expect(kept.Warnings).toContain(
      "Host 'ip-10-98-57-180.eu-west-1.compute.internal': IpAddresses '10.98.57.1800' is not an IP address and was left out; the host is known by its other identifiers.",
    );
  });

  // A real Nessus report whose host-fqdn holds a short name was dropped whole
  // (0 findings, every record skipped) although the host has an address and a MAC.
  const realNessus = () =>
    readFileSync(fixturePath('tenable/nessus/nessus_with_cvssv3.nessus'), 'utf8').replace(
      '<tag name="host-ip">44.228.249.3</tag>',
      '<tag name="host-ip">10.45.0.17</tag>\n<tag name="mac-address">00:50:56:a1:2b:3c</tag>',
    );

  it('keeps a Nessus host whose host-fqdn is a short name, by its address and MAC', async () => {
    const report = realNessus().replace(
      '<tag name="host-fqdn">testphp.vulnweb.com</tag>',
      '<tag name="host-fqdn">qa3app01</tag>',
    );
    const { body } = await upload(report, '?FileName=qa3.nessus');
    expect(body.State).toBe('Completed');
    // Every ReportItem of the host is a finding: none is skipped.
    const items = report.match(/<ReportItem /g)!.length;
    expect(items).toBe(49);
    expect(body.Counts).toMatchObject({ Findings: items, Skipped: 0, AssetsCreated: 1 });
    expect(body.Attention).toBeNull();
    const found = (await json('GET', '/assets?Search=10.45.0.17', reader)).json();
    expect(found.TotalCount).toBe(1);
    const asset = (await json('GET', `/assets/${found.Items[0].Id}`, reader)).json();
    expect(asset).toMatchObject({
      Hostname: 'qa3app01',
      Fqdn: null,
      IpAddresses: ['10.45.0.17'],
      MacAddresses: ['00:50:56:a1:2b:3c'],
    });
  });

  it('drops only an identifier that is not valid, with a warning naming the host and the value', async () => {
    const report = realNessus()
      .replace(
        '<tag name="host-fqdn">testphp.vulnweb.com</tag>',
        '<tag name="host-fqdn">qa3app01..corp</tag>',
      )
      .replaceAll('10.45.0.17', '10.45.0.18')
      .replace('00:50:56:a1:2b:3c', '00:50:56:a1:2b:3d');
    const { body } = await upload(report);
    expect(body).toMatchObject({ State: 'Completed', Attention: null });
    expect(body.Counts).toMatchObject({ Findings: 49, Skipped: 0, AssetsCreated: 1 });
    expect(body.Warnings).toEqual([
      "Host 'testphp.vulnweb.com': Fqdn 'qa3app01..corp' is not a host or domain name and was left out; the host is known by its other identifiers.",
    ]);
    // An address that is not one is said too (Nessus's host-ip used to be dropped silently).
    const badAddress = realNessus()
      .replace('<tag name="host-ip">10.45.0.17</tag>', '<tag name="host-ip">10.45.0.1001</tag>')
      .replace('00:50:56:a1:2b:3c', '00:50:56:a1:2b:3e')
      .replace(
        '<tag name="host-fqdn">testphp.vulnweb.com</tag>',
        '<tag name="host-fqdn">qa3app03.corp.example</tag>',
      );
    const second = (await upload(badAddress)).body;
    expect(second.Counts).toMatchObject({ Findings: 49, Skipped: 0, AssetsCreated: 1 });
    expect(second.Warnings).toEqual([
      "Host 'testphp.vulnweb.com': IpAddresses '10.45.0.1001' is not an IP address and was left out; the host is known by its other identifiers.",
    ]);
  });

  it('files a Trivy Kubernetes report of an EKS cluster (ClusterName an ARN)', async () => {
    const report = readFileSync(fixturePath('trivy/issue-12-eks-cluster.json'));
    const { body } = await upload(report, '', analyst, 'application/json');
    expect(body).toMatchObject({ State: 'Completed', Format: 'trivy', Attention: null, Warnings: [] });
    expect(body.Counts).toMatchObject({ Findings: 7, New: 7, Skipped: 0, AssetsCreated: 3 });
    const images = (await json('GET', '/assets?Kind=ContainerImage&PageSize=50', reader)).json();
    expect(images.Items.map((a: { Name: string }) => a.Name).sort()).toEqual([
      '602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.15.1-eksbuild.1',
      'nginx:1.25.2',
    ]);
    const clusters = (await json('GET', '/assets?Search=cluster%2Fprod&PageSize=5', reader)).json();
    expect(clusters.Items.map((a: { Name: string }) => a.Name)).toEqual([
      'arn:aws:eks:us-east-1:123456789012:cluster/prod',
    ]);
  });

  // An anonymised OpenVAS report with an invalid address made two assets of one
  // machine (services on one, findings on the other), one of them named "192".
  it('keeps one OpenVAS machine one asset when its address is not valid, titled by the NVT', async () => {
    const report = readFileSync(fixturePath('openvas/issue-12-anonymised.xml'));
    const { body } = await upload(report);
    expect(body).toMatchObject({ State: 'Completed', Format: 'openvas', Attention: null });
    expect(body.Counts).toMatchObject({ AssetsCreated: 1, New: 1, Skipped: 0 });
    expect(body.Warnings).toEqual([
      "Host 'server99': the address '192.168.1.1001' is not an IP address and was left out.",
    ]);
    const finding = (await findings('&Search=KB5062557')).Items[0];
    expect(finding.Title).toBe('Microsoft Windows Multiple Vulnerabilities (KB5062557)');
    const asset = (await json('GET', `/assets/${finding.AssetId}`, reader)).json();
    expect(asset).toMatchObject({
      Name: 'server99',
      Hostname: 'server99',
      IpAddresses: [],
      MacAddresses: ['00:50:56:8a:1b:2c'],
      OperatingSystem: 'Microsoft Windows Server 2019',
    });
    const services = (await json('GET', `/assets/${finding.AssetId}/services`, reader)).json();
    expect(services.map((s: { Port: number }) => s.Port).sort((a: number, b: number) => a - b)).toEqual([
      42, 3389,
    ]);
  });

  it('flags an import that reads records but keeps no finding, or skips most of what it read', async () => {
    const host = (name: string, ip: string, plugin: string) =>
      `<ReportHost name="${name}"><HostProperties><tag name="host-ip">${ip}</tag></HostProperties>
<ReportItem port="443" svc_name="www" protocol="tcp" severity="3" pluginID="${plugin}" pluginName="Flag test ${plugin}" pluginFamily="Web Servers"><plugin_output>seen</plugin_output></ReportItem></ReportHost>`;
    const report = (hosts: string[]) =>
      `<?xml version="1.0" ?>\n<NessusClientData_v2><Report name="flag">${hosts.join('\n')}</Report></NessusClientData_v2>\n`;
    // Neither host can be told apart: no valid address, and a name that is no host name.
    const nothing = (
      await upload(report([host('qa3 app01', '10.46.0.300', '910001'), host('qa3 app02', '', '910002')]))
    ).body;
    expect(nothing.State).toBe('Completed');
    expect(nothing.Counts).toMatchObject({ Records: 4, Skipped: 4, Findings: 0 });
    expect(nothing.Attention).toEqual({
      Reason: 'NoFindings',
      Detail: 'The report was read (4 records) but none became a finding: 4 were skipped (see Warnings).',
    });
    expect(nothing.Warnings[0]).toContain("'qa3 app01'");
    const most = (
      await upload(
        report([
          host('qa3 app01', '', '910001'),
          host('qa3 app02', '', '910002'),
          host('10.46.0.1', '10.46.0.1', '910003'),
        ]),
      )
    ).body;
    expect(most.Counts).toMatchObject({ Records: 6, Skipped: 4, Findings: 1 });
    expect(most.Attention).toEqual({
      Reason: 'MostlySkipped',
      Detail: '4 of the 6 records read were skipped (see Warnings).',
    });
    const listed = (await json('GET', '/imports?PageSize=2', reader)).json();
    expect(listed.Items.map((i: { Attention: { Reason: string } | null }) => i.Attention?.Reason)).toEqual([
      'MostlySkipped',
      'NoFindings',
    ]);
    // A report with nothing to say is not flagged.
    const empty = (await upload(report([]))).body;
    expect(empty).toMatchObject({ State: 'Completed', Attention: null });
  });

  it('pages through the imports newest first with NextCursor, and refuses a cursor it did not make', async () => {
    const all = (await json('GET', '/imports?PageSize=500', reader)).json();
    expect(all.Items.length).toBeGreaterThan(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await json('GET', `/imports?PageSize=2${cursor ? `&Cursor=${cursor}` : ''}`, reader);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { Items: { Id: string }[]; NextCursor: string | null; TotalCount: number };
      expect(page.TotalCount).toBe(all.TotalCount);
      seen.push(...page.Items.map((i) => i.Id));
      cursor = page.NextCursor;
    } while (cursor);
    expect(seen).toEqual(all.Items.map((i: { Id: string }) => i.Id));
    for (const bad of ['bogus', Buffer.from('{"CreatedAt":"yesterday","Id":"x"}').toString('base64url')]) {
      const res = await json('GET', `/imports?Cursor=${bad}`, reader);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().detail).toBe('Cursor is not valid; pass the NextCursor of a previous page.');
    }
  });

  it('says how to name the format when it cannot tell it', async () => {
    const unknown = await upload('just some text\nthat is no report\n', '', analyst, 'text/plain');
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toMatch(/name it with Format \(API\) or --format \(CLI\)/);
  });

  it('lists the formats it reads', async () => {
    const formats = (await json('GET', '/imports/formats', reader)).json();
    expect(formats.map((f: { Format: string }) => f.Format)).toEqual(
      expect.arrayContaining(['nessus', 'nmap']),
    );
  });
});
