import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FindingRepository } from '../../../src/modules/findings/repository.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const DAY = 86_400_000;

describe.each(DB_KINDS)('findings [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const clock = new TestClock(new Date('2026-11-21T12:00:00Z'));
  let analyst: Credentials;
  let manager: Credentials;
  let readOnly: Credentials;
  let outsider: Credentials;
  let hostA: string;
  let hostB: string;

  const send = (method: 'GET' | 'POST' | 'PUT', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  const httpd = {
    Title: 'Apache HTTP Server path traversal',
    Cve: ['cve-2021-41773'],
    Severity: 'High',
    CvssScore: 7.5,
    Cwe: ['CWE-22'],
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { clock });
    analyst = await t.userWithKey('Analyst');
    manager = await t.userWithKey('Manager');
    readOnly = await t.userWithKey('ReadOnly');
    const other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Admin', other);
    hostA = (
      await send('POST', '/assets', analyst, {
        Kind: 'Host',
        IpAddresses: ['10.0.0.1'],
        Name: 'alpha',
        Tags: ['dmz'],
      })
    ).json().Id;
    hostB = (
      await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.0.0.2'], Name: 'bravo' })
    ).json().Id;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('records a finding with SLA due date and a CVSS-based risk, and deduplicates it', async () => {
    const body = {
      AssetId: hostA,
      Vulnerability: httpd,
      Location: { Kind: 'Port', Port: 443, Protocol: 'tcp' },
      Evidence: 'GET /cgi-bin/.%2e/',
    };
    const first = await send('POST', '/findings', analyst, body);
    expect(first.statusCode).toBe(201);
    const f = first.json();
    expect(f).toMatchObject({
      AssetId: hostA,
      AssetName: 'alpha',
      Title: 'Apache HTTP Server path traversal',
      CVEReferences: ['CVE-2021-41773'],
      Severity: 'High',
      State: 'Open',
      RiskScore: 56.25, // CVSS 7.5 × 0.75 (EPSS unknown) × 1.0 (criticality 3, internal)
      Location: { Kind: 'Port', Port: 443, Protocol: 'tcp' },
      Evidence: 'GET /cgi-bin/.%2e/',
      Source: 'Manual',
    });
    expect(new Date(f.DueAt).getTime() - new Date(f.FirstSeen).getTime()).toBe(30 * DAY);
    expect(f.Events.map((e: { Kind: string }) => e.Kind)).toEqual(['created']);

    const again = await send('POST', '/findings', analyst, body);
    expect(again.statusCode).toBe(200);
    expect(again.json().Id).toBe(f.Id);
    const otherPort = await send('POST', '/findings', analyst, {
      ...body,
      Location: { Kind: 'Port', Port: 8443, Protocol: 'tcp' },
    });
    expect(otherPort.statusCode).toBe(201);
    // The same CVE on another asset: one vulnerability, two findings.
    const onB = (await send('POST', '/findings', analyst, { ...body, AssetId: hostB })).json();
    expect(onB.VulnerabilityId).toBe(f.VulnerabilityId);
    expect(onB.Id).not.toBe(f.Id);
  });

  it('follows the state rules, records each transition, and reopens a fixed finding seen again', async () => {
    const body = {
      AssetId: hostA,
      Vulnerability: { Title: 'Weak TLS ciphers', Severity: 'Medium' },
      Location: { Kind: 'Port', Port: 25, Protocol: 'tcp' },
    };
    const f = (await send('POST', '/findings', analyst, body)).json();
    expect((await send('POST', `/findings/${f.Id}/state`, readOnly, { State: 'Fixed' })).statusCode).toBe(
      403,
    );
    const fixed = await send('POST', `/findings/${f.Id}/state`, analyst, { State: 'Fixed' });
    expect(fixed.json()).toMatchObject({ State: 'Fixed' });
    expect(fixed.json().FixedAt).not.toBeNull();
    const wrong = await send('POST', `/findings/${f.Id}/state`, analyst, {
      State: 'FalsePositive',
      Justification: 'x',
    });
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json().detail).toContain('from Fixed it can become Reopened');

    // The manual finding's vulnerability has no CVE or rule: reuse it by id to report it again.
    const seen = await send('POST', '/findings', analyst, {
      AssetId: hostA,
      VulnerabilityId: f.VulnerabilityId,
      Location: body.Location,
    });
    expect(seen.statusCode).toBe(200);
    const reopened = seen.json();
    expect(reopened.Id).toBe(f.Id);
    expect(reopened.State).toBe('Reopened');
    expect(reopened.FixedAt).toBeNull();
    expect(reopened.Events.map((e: { ToState: string | null }) => e.ToState)).toEqual([
      'Open',
      'Fixed',
      'Reopened',
    ]);
  });

  it('lets only a Manager accept a risk, until a date, after which it returns to Open by itself', async () => {
    const f = (
      await send('POST', '/findings', analyst, {
        AssetId: hostB,
        Vulnerability: { Title: 'Old jQuery', Severity: 'Low' },
        Location: { Kind: 'Url', Url: 'https://b.example/', Parameter: 'q' },
      })
    ).json();
    const until = new Date(clock.now.getTime() + 10 * DAY).toISOString();
    const byAnalyst = await send('POST', `/findings/${f.Id}/state`, analyst, {
      State: 'RiskAccepted',
      Justification: 'vendor patch pending',
      Until: until,
    });
    expect(byAnalyst.statusCode).toBe(403);
    expect(byAnalyst.json().detail).toContain('Manager');
    for (const [bad, field] of [
      [{ State: 'RiskAccepted', Until: until }, '/Justification'],
      [{ State: 'RiskAccepted', Justification: 'x' }, '/Until'],
      [
        {
          State: 'RiskAccepted',
          Justification: 'x',
          Until: new Date(clock.now.getTime() - DAY).toISOString(),
        },
        '/Until',
      ],
      [
        {
          State: 'RiskAccepted',
          Justification: 'x',
          Until: new Date(clock.now.getTime() + 400 * DAY).toISOString(),
        },
        '/Until',
      ],
      [{ State: 'Fixed', Until: until }, '/Until'],
      [{ State: 'Closed' }, '/State'],
      [{ state: 'Fixed' }, "did you mean 'State'"],
    ] as const) {
      const res = await send('POST', `/findings/${f.Id}/state`, manager, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.body).toContain(field);
    }
    const accepted = await send('POST', `/findings/${f.Id}/state`, manager, {
      State: 'RiskAccepted',
      Justification: 'vendor patch pending',
      Until: until,
    });
    expect(accepted.json()).toMatchObject({
      State: 'RiskAccepted',
      StateReason: 'vendor patch pending',
      RiskAcceptedUntil: until,
    });

    // A scan seeing it again does not undo the decision.
    const seen = await send('POST', '/findings', analyst, {
      AssetId: hostB,
      VulnerabilityId: f.VulnerabilityId,
      Location: { Kind: 'Url', Url: 'https://b.example/', Parameter: 'q' },
    });
    expect(seen.json().State).toBe('RiskAccepted');

    const start = clock.now;
    try {
      clock.now = new Date(start.getTime() + 9 * DAY);
      expect(await t.services.findings.expireRiskAcceptances()).toBe(0);
      clock.now = new Date(start.getTime() + 10 * DAY + 1000);
      expect(await t.services.findings.expireRiskAcceptances()).toBeGreaterThanOrEqual(1);
    } finally {
      clock.now = start;
    }
    const after = (await send('GET', `/findings/${f.Id}`, readOnly)).json();
    expect(after).toMatchObject({ State: 'Open', RiskAcceptedUntil: null });
    expect(after.Events.at(-1)).toMatchObject({
      ActorType: 'system',
      FromState: 'RiskAccepted',
      ToState: 'Open',
      Reason: 'Risk acceptance expired',
    });
  });

  it('needs a justification for a false positive and can revert it', async () => {
    const f = (
      await send('POST', '/findings', analyst, {
        AssetId: hostB,
        Vulnerability: { Title: 'Banner leak', Severity: 'Info' },
      })
    ).json();
    expect(
      (await send('POST', `/findings/${f.Id}/state`, analyst, { State: 'FalsePositive' })).statusCode,
    ).toBe(400);
    expect(
      (
        await send('POST', `/findings/${f.Id}/state`, analyst, {
          State: 'FalsePositive',
          Justification: 'WAF strips it',
        })
      ).json().State,
    ).toBe('FalsePositive');
    expect((await send('POST', `/findings/${f.Id}/state`, analyst, { State: 'Open' })).json().State).toBe(
      'Open',
    );
  });

  it('overrides severity with a reason; due date and risk follow; null removes it', async () => {
    const f = (
      await send('POST', '/findings', analyst, {
        AssetId: hostB,
        Vulnerability: { ...httpd, Title: 'httpd again', Cve: ['CVE-2021-42013'] },
        Location: { Kind: 'Port', Port: 80, Protocol: 'tcp' },
      })
    ).json();
    expect((await send('POST', `/findings/${f.Id}/severity`, analyst, { Severity: 'Low' })).statusCode).toBe(
      400,
    );
    const low = (
      await send('POST', `/findings/${f.Id}/severity`, analyst, {
        Severity: 'Low',
        Reason: 'internal only, behind VPN',
      })
    ).json();
    expect(low).toMatchObject({
      Severity: 'Low',
      ScannerSeverity: 'High',
      SeverityOverrideReason: 'internal only, behind VPN',
      RiskScore: 18.75, // Low's 0.25 (a person's severity outranks CVSS) × 0.75
    });
    expect(new Date(low.DueAt).getTime() - new Date(low.FirstSeen).getTime()).toBe(180 * DAY);
    const back = (await send('POST', `/findings/${f.Id}/severity`, analyst, { Severity: null })).json();
    expect(back).toMatchObject({ Severity: 'High', SeverityOverrideReason: null, RiskScore: 56.25 });
  });

  it('refuses bad input and stores nothing', async () => {
    const before = (await send('GET', '/findings', readOnly)).json().TotalCount;
    const cases: [unknown, number, string][] = [
      [{ AssetId: hostA }, 400, '/Vulnerability'],
      [{ AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Severe' } }, 400, 'Severity'],
      [{ AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Low', Cve: ['CVE-21-1'] } }, 400, '/Cve'],
      [
        { AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Low' }, Location: { Kind: 'Port' } },
        400,
        '/Location/Port',
      ],
      [
        { AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Low' }, Location: { Kind: 'Url' } },
        400,
        '/Location/Url',
      ],
      // The domain fields are filePath and packageName; clients know them as File and Package.
      [
        { AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Low' }, Location: { Kind: 'File' } },
        400,
        '"path":"/Location/File"',
      ],
      [
        { AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Low' }, Location: { Kind: 'Package' } },
        400,
        '"detail":"/Location/Package: is required for a package location"',
      ],
      [
        { AssetId: '01900000-0000-7000-8000-000000000000', Vulnerability: { Title: 'x', Severity: 'Low' } },
        404,
        'No asset',
      ],
      [{ AssetId: hostA, VulnerabilityId: '01900000-0000-7000-8000-000000000000' }, 404, 'No vulnerability'],
      [{ AssetId: hostA, Vulnerability: { Title: 'x', Severity: 'Low', title: 'y' } }, 400, 'title'],
    ];
    for (const [body, status, text] of cases) {
      const res = await send('POST', '/findings', analyst, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.body).toContain(text);
    }
    expect((await send('GET', '/findings', readOnly)).json().TotalCount).toBe(before);
  });

  it('filters, sorts and pages', async () => {
    const list = async (query: string) => (await send('GET', `/findings?${query}`, readOnly)).json();
    const all = await list('PageSize=500');
    expect(all.TotalCount).toBeGreaterThanOrEqual(7);
    const risks = all.Items.map((f: { RiskScore: number }) => f.RiskScore);
    expect(risks).toEqual([...risks].sort((a, b) => b - a));

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`PageSize=2${cursor ? `&Cursor=${cursor}` : ''}`);
      paged.push(...page.Items.map((f: { Id: string }) => f.Id));
      cursor = page.NextCursor;
    } while (cursor);
    expect(paged).toEqual(all.Items.map((f: { Id: string }) => f.Id));

    const firstPage = await list('PageSize=1');
    expect(
      (await send('GET', `/findings?Sort=-FirstSeen&Cursor=${firstPage.NextCursor}`, readOnly)).statusCode,
    ).toBe(400);

    expect((await list(`AssetId=${hostA}&Cve=CVE-2021-41773`)).TotalCount).toBe(2);
    expect((await list('Cve=cve-2021-41773')).TotalCount).toBe(3);
    expect(
      (await list('Tag=dmz&State=Open&State=Reopened')).Items.every(
        (f: { AssetName: string }) => f.AssetName === 'alpha',
      ),
    ).toBe(true);
    expect((await list('Severity=Info')).Items.map((f: { Title: string }) => f.Title)).toEqual([
      'Banner leak',
    ]);
    expect((await list('RiskMin=70')).Items.every((f: { RiskScore: number }) => f.RiskScore >= 70)).toBe(
      true,
    );
    expect((await list('Search=jquery')).Items.map((f: { Title: string }) => f.Title)).toEqual([
      'Old jQuery',
    ]);
    expect((await list('Search=bravo')).TotalCount).toBeGreaterThan(0);
    const soon = new Date(clock.now.getTime() + 31 * DAY).toISOString();
    expect(
      (await list(`DueBefore=${soon}`)).Items.every(
        (f: { DueAt: string }) => new Date(f.DueAt) < new Date(soon),
      ),
    ).toBe(true);
    const bySeverity = (await list('Sort=-Severity&PageSize=500')).Items.map(
      (f: { Severity: string }) => f.Severity,
    );
    expect(bySeverity[0]).toBe('High');
    expect(bySeverity.at(-1)).toBe('Info');
    const due = (await list('Sort=DueAt&PageSize=500')).Items.map((f: { DueAt: string | null }) => f.DueAt);
    expect(due.at(-1)).toBeNull();
    for (const bad of [
      'State=Closed',
      'Severity=Severe',
      'Cve=nope',
      'EpssMin=2',
      'Sort=Risk',
      'DueBefore=tomorrow',
      'state=Open',
    ]) {
      expect((await send('GET', `/findings?${bad}`, readOnly)).statusCode, bad).toBe(400);
    }
  });

  it('keeps organisations apart: foreign findings and assets are 404, lists and counts are separate', async () => {
    const mine = (await send('GET', '/findings?PageSize=1', readOnly)).json().Items[0];
    expect((await send('GET', `/findings/${mine.Id}`, outsider)).statusCode).toBe(404);
    expect((await send('POST', `/findings/${mine.Id}/state`, outsider, { State: 'Fixed' })).statusCode).toBe(
      404,
    );
    expect(
      (await send('POST', `/findings/${mine.Id}/severity`, outsider, { Severity: null })).statusCode,
    ).toBe(404);
    expect(
      (
        await send('POST', '/findings', outsider, {
          AssetId: hostA,
          Vulnerability: { Title: 'x', Severity: 'Low' },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await send('POST', '/findings', outsider, { AssetId: hostA, VulnerabilityId: mine.VulnerabilityId }))
        .statusCode,
    ).toBe(404);
    const theirs = await send('GET', '/findings', outsider);
    expect(theirs.json()).toEqual({ Items: [], NextCursor: null, TotalCount: 0 });
    expect((await send('GET', `/findings?AssetId=${hostA}`, outsider)).json().TotalCount).toBe(0);
  });

  it('has SLA settings that Managers change and new findings follow', async () => {
    expect((await send('GET', '/settings', readOnly)).json()).toEqual({
      SlaDays: { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null },
      KevSlaDays: 14,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    const sla = { Critical: 3, High: 14, Medium: 60, Low: 120, Info: 365 };
    expect((await send('PUT', '/settings', analyst, { SlaDays: sla })).statusCode).toBe(403);
    expect((await send('PUT', '/settings', manager, { SlaDays: { ...sla, High: 0 } })).statusCode).toBe(400);
    expect((await send('PUT', '/settings', manager, { SlaDays: { Critical: 3 } })).statusCode).toBe(400);
    expect((await send('PUT', '/settings', manager, { SlaDays: sla })).json()).toEqual({
      SlaDays: sla,
      KevSlaDays: 14,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    expect((await send('GET', '/settings', outsider)).json().SlaDays.High).toBe(30);
    const f = (
      await send('POST', '/findings', analyst, {
        AssetId: hostB,
        Vulnerability: { Title: 'Info leak', Severity: 'Info' },
      })
    ).json();
    expect(new Date(f.DueAt).getTime() - new Date(f.FirstSeen).getTime()).toBe(365 * DAY);
  });

  it('exports the matching findings as streamed CSV, safe to open in a spreadsheet', async () => {
    await send('POST', '/findings', analyst, {
      AssetId: hostB,
      Vulnerability: { Title: '=HYPERLINK("http://evil.example")', Severity: 'Low' },
    });
    const total = (await send('GET', '/findings?State=Open&State=Reopened', readOnly)).json().TotalCount;
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/latest/findings?State=Open&State=Reopened&PageSize=1',
      headers: { ...authHeaders(readOnly), accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('findings.csv');
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toBe(
      'Id,Asset,AssetId,Title,CVE,Severity,State,RiskScore,DueAt,Kev,Port,Protocol,Url,Package,Source,FirstSeen,LastSeen',
    );
    expect(lines).toHaveLength(total + 1);
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    const foreign = await t.app.inject({
      method: 'GET',
      url: '/api/latest/findings',
      headers: { ...authHeaders(outsider), accept: 'text/csv' },
    });
    expect(foreign.body.trim().split('\n')).toHaveLength(1);
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/latest/findings?State=Nope',
      headers: { ...authHeaders(readOnly), accept: 'text/csv' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('counts the matches when asked, leaves the count out when told, and caps an unasked count', async () => {
    const exact = (await send('GET', '/findings?IncludeTotal=true&PageSize=1', readOnly)).json();
    expect(exact.TotalCount).toBeGreaterThan(1);
    const small = (await send('GET', '/findings?PageSize=1', readOnly)).json();
    expect(small.TotalCount).toBe(exact.TotalCount);
    const none = (await send('GET', '/findings?IncludeTotal=false&PageSize=1', readOnly)).json();
    expect(none).not.toHaveProperty('TotalCount');
    expect(none.Items).toHaveLength(1);
    const bad = await send('GET', '/findings?IncludeTotal=maybe', readOnly);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ path: '/IncludeTotal' });

    // The unasked count stops at the cap: with a cap below the match it reads cap + 1 rows.
    const repo = new FindingRepository(tdb.database.db);
    const org = (await t.services.organizations.ensureFirst()).organization.id;
    expect(await repo.countUpTo(org, {}, 1)).toBe(2);
    expect(await repo.countUpTo(org, {}, 1_000)).toBe(exact.TotalCount);
  });
});
