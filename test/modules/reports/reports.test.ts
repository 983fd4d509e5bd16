import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlerOf, type JobServices } from '../../../src/jobs/catalogue.js';
import { JobWorker } from '../../../src/jobs/worker.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { readPdf } from './pdf-text.js';

describe.each(DB_KINDS)('reports [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let reader: Credentials;
  let outsider: Credentials;
  let worker: JobWorker | undefined;

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** Waits until the report is Completed or Failed (the job worker makes it). */
  const finished = async (id: string, who = analyst) => {
    for (let i = 0; i < 600; i++) {
      const r = (await send('GET', `/reports/${id}`, who)).json();
      if (r.State === 'Completed' || r.State === 'Failed') return r;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`report ${id} did not finish`);
  };

  /** The report-generate jobs run on a real worker of the queue, as a server runs them. */
  const startWorker = () => {
    if (worker) return;
    worker = new JobWorker(t.services.jobs, { pollMs: 20 });
    worker.register('report-generate', handlerOf('report-generate', t.services as unknown as JobServices));
    worker.start();
  };

  const make = async (body: Record<string, unknown>) => {
    startWorker();
    const res = await send('POST', '/reports', analyst, body);
    expect(res.statusCode, res.body).toBe(202);
    const done = await finished(res.json().Id);
    expect(done.State, done.Error).toBe('Completed');
    const file = await send('GET', `/reports/${done.Id}/download`, analyst);
    expect(file.statusCode).toBe(200);
    return { report: done, file };
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    // The findings were found on 3 November; one was fixed on the 10th; the reports are made on the 21st.
    t.clock.now = new Date('2026-11-03T12:00:00Z');
    const assets: Record<string, string> = {};
    let hsts = '';
    for (const [name, tags] of [
      ['db-primary.example', ['prod']],
      ['web-1.example', ['prod']],
      ['lab-box.example', ['lab']],
    ] as const) {
      assets[name] = (
        await send('POST', '/assets', analyst, { Kind: 'Host', Name: name, Hostname: name, Tags: tags })
      ).json().Id;
    }
    const finding = (asset: string, title: string, severity: string, extra: Record<string, unknown> = {}) =>
      send('POST', '/findings', analyst, {
        AssetId: assets[asset],
        Vulnerability: { Title: title, Severity: severity, ...extra },
        Location: { Kind: 'Port', Port: 443, Protocol: 'tcp' },
      });
    for (const [asset, title, severity, extra] of [
      [
        'db-primary.example',
        'OpenSSL heap overflow',
        'Critical',
        { Cve: ['CVE-2026-1001'], Solution: 'Upgrade OpenSSL to 3.4.2.' },
      ],
      ['db-primary.example', 'PostgreSQL privilege escalation', 'Critical', { Cve: ['CVE-2026-1002'] }],
      ['db-primary.example', 'Weak TLS ciphers', 'Medium', {}],
      [
        'web-1.example',
        'OpenSSL heap overflow',
        'Critical',
        { Cve: ['CVE-2026-1001'], Solution: 'Upgrade OpenSSL to 3.4.2.' },
      ],
      ['web-1.example', 'Missing HSTS header', 'Low', {}],
      ['lab-box.example', 'Telnet enabled', 'High', {}],
    ] as const) {
      const res = await finding(asset, title, severity, extra);
      expect(res.statusCode, res.body).toBe(201);
      if (title === 'Missing HSTS header') hsts = res.json().Id;
    }
    t.clock.now = new Date('2026-11-10T12:00:00Z');
    expect((await send('POST', `/findings/${hsts}/state`, analyst, { State: 'Fixed' })).statusCode).toBe(200);
    t.clock.now = new Date('2026-11-21T12:00:00Z');
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await tdb?.drop();
  });

  it('answers 409 for a download before the report is made, then the report once it is', async () => {
    // First, before any worker runs: the report stays Queued until one does.
    const res = await send('POST', '/reports', analyst, { Kind: 'Technical', Format: 'Csv' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers.location).toBe(`/api/latest/reports/${res.json().Id}`);
    expect(res.json()).toMatchObject({ State: 'Queued', Progress: 0, Kind: 'Technical', Format: 'Csv' });
    const early = await send('GET', `/reports/${res.json().Id}/download`, analyst);
    expect(early.statusCode).toBe(409);
    expect(early.headers['content-type']).toContain('application/problem+json');
    expect(early.json().detail).toContain('Queued');
    startWorker();
    const done = await finished(res.json().Id);
    expect(done).toMatchObject({ State: 'Completed', Progress: 100, RowsTotal: 5, RowsWritten: 5 });
    const file = await send('GET', `/reports/${done.Id}/download`, reader);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toMatch(
      /^attachment; filename="Technical-report-Organisation-2026-11-21\.csv"/,
    );
  });

  it('makes an executive PDF whose text holds its figures, charts and top asset', async () => {
    // The history of the days so far (the daily job's work), for the trend charts.
    await t.services.history.runSnapshot(t.org.id, { rebuild: true }, new AbortController().signal);
    const { report, file } = await make({ Kind: 'Executive', Format: 'Pdf', Name: 'Board summary' });
    expect(file.headers['content-type']).toBe('application/pdf');
    const pdf = await readPdf(file.rawPayload);
    expect(pdf.pages).toBe(report.PageCount);
    expect(pdf.pages).toBeGreaterThanOrEqual(1);
    expect(pdf.pages).toBeLessThanOrEqual(3);
    const text = pdf.text.join('\n');
    expect(text).toContain('Board summary');
    // Headline: 3 open Critical findings (past their 7-day SLA), 5 open in all; 6 new and 1 fixed.
    expect(text).toMatch(/Open findings\s+5/);
    expect(text).toMatch(/Open Critical\s+3/);
    expect(text).toMatch(/Past SLA\s+3/);
    expect(text).toMatch(/New in period\s+6/);
    expect(text).toMatch(/Fixed in period\s+1/);
    // The trend charts' figures, from the history: 6 open (3 Critical) on the 3rd, 5 on the 20th.
    expect(text).toContain('Open findings over time');
    expect(text).toMatch(/Critical\s+3\s+3/);
    expect(text).toMatch(/Low\s+1\s+0/);
    expect(text).toContain('New vs fixed per week');
    expect(text).toMatch(/2026-11-02\s+6\s+0/);
    expect(text).toMatch(/2026-11-09\s+0\s+1/);
    expect(text).toContain('Mean time to remediate vs SLA');
    // The riskiest asset holds two Critical findings; the riskiest vulnerability is on two assets.
    expect(text).toContain('db-primary.example');
    expect(text).toContain('OpenSSL heap overflow');
    expect(text).toContain('CVE-2026-1001');
    // The SLA compliance chart's figures: 5 open findings with a due date, 2 within it; the fixed one in time.
    expect(text).toContain('SLA compliance');
    expect(text).toMatch(/Open now\s+5\s+2\s+40\.0%/);
    expect(text).toMatch(/Fixed \(90 days\)\s+1\s+1\s+100\.0%/);
    expect(text).toMatch(/Overall\s+6\s+3\s+50\.0%/);
    // The audit log has the download.
    const audit = await t.services.audit.listRecent(t.org.id);
    expect(audit.some((e) => e.action === 'report.downloaded' && e.target_id === report.Id)).toBe(true);
  });

  it('makes a self-contained HTML executive summary with inline SVG charts and the figures', async () => {
    const { file } = await make({ Kind: 'Executive', Format: 'Html', Tag: 'prod' });
    expect(file.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = file.body;
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|<link |src="http/);
    expect(html).toContain('@media print');
    expect(html).toContain('Tag &#34;prod&#34;');
    // prod: db-primary (2 Critical, 1 Medium) and web-1 (1 Critical; its Low was fixed).
    expect(html).toMatch(/Open Critical<\/div><div class="value">3</);
    expect(html).toMatch(/Open High<\/div><div class="value">0</);
    expect(html).not.toContain('lab-box.example');
  });

  it('makes an executive CSV of its figures', async () => {
    const { file } = await make({ Kind: 'Executive', Format: 'Csv' });
    const lines = file.body.trim().split('\n');
    expect(lines[0]).toBe('Section,Name,Value1,Value2,Value3,Value4');
    expect(lines).toContain('Headline,Open Critical,3,,,');
    expect(lines).toContain('Headline,Past SLA,3,,,');
    expect(lines).toContain('Top 10 riskiest assets,db-primary.example,3,Critical,180.0,');
  });

  it('makes a technical CSV with one row per finding in scope', async () => {
    const { report, file } = await make({ Kind: 'Technical', Format: 'Csv', Tag: 'prod' });
    const lines = file.body.trim().split('\n');
    expect(lines[0]).toBe(
      'FindingId,AssetId,Asset,Title,Severity,Risk,State,CVE,KEV,Location,FirstSeen,Due,Solution',
    );
    const rows = lines.slice(1);
    const listed = (
      await send('GET', '/findings?Tag=prod&State=Open&State=Reopened&PageSize=100', analyst)
    ).json();
    expect(rows.map((r) => r.split(',')[0]).sort()).toEqual(
      listed.Items.map((f: { Id: string }) => f.Id).sort(),
    );
    expect(report.RowsWritten).toBe(4);
    // Grouped by asset: db-primary's rows first.
    expect(rows[0]).toContain('db-primary.example');
    expect(file.body).toContain('Upgrade OpenSSL to 3.4.2.');
  });

  it('makes a technical PDF grouped by vulnerability', async () => {
    const { report, file } = await make({ Kind: 'Technical', Format: 'Pdf', GroupBy: 'Vulnerability' });
    const pdf = await readPdf(file.rawPayload);
    expect(pdf.pages).toBe(report.PageCount);
    const text = pdf.text.join('\n');
    for (const title of ['OpenSSL heap overflow', 'Telnet enabled', 'Weak TLS ciphers', '443/tcp'])
      expect(text).toContain(title);
    // Fixed findings are not in a report of open ones.
    expect(text).not.toContain('Missing HSTS header');
  });

  it('refuses bad input with problems', async () => {
    const bad = async (body: unknown, status: number, pointer?: string) => {
      const res = await send('POST', '/reports', analyst, body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.headers['content-type']).toContain('application/problem+json');
      if (pointer) expect(JSON.stringify(res.json().errors)).toContain(pointer);
      return res.json();
    };
    await bad({ Kind: 'Weekly', Format: 'Pdf' }, 400, '/Kind');
    await bad({ Kind: 'Executive', Format: 'Docx' }, 400, '/Format');
    await bad({ Kind: 'Executive', Format: 'Pdf', Colour: 'red' }, 400);
    await bad(
      { Kind: 'Executive', Format: 'Pdf', Tag: 'prod', ScanGroupId: '0190a0a0-0000-7000-8000-000000000000' },
      400,
      '/ScanGroupId',
    );
    await bad(
      { Kind: 'Executive', Format: 'Pdf', ScanGroupId: '0190a0a0-0000-7000-8000-000000000000' },
      400,
      '/ScanGroupId',
    );
    const empty = await bad({ Kind: 'Technical', Format: 'Pdf', Tag: 'no-such-tag' }, 422);
    expect(empty.type).toContain('report-scope-empty');
    expect(empty.detail).toContain('matches no findings');
    await bad({ Kind: 'Technical', Format: 'Csv', Filter: { Search: 'nothing-like-this' } }, 422);
    // A scan group of the organisation whose scans reported nothing: its scope is empty.
    const manager = await t.userWithKey('Manager');
    const group = await send('POST', '/scangroups', manager, { ScanGroupName: 'Quiet group' });
    expect(group.statusCode, group.body).toBe(200);
    const quiet = await bad({ Kind: 'Executive', Format: 'Pdf', ScanGroupId: group.json().Id }, 422);
    expect(quiet.type).toContain('report-scope-empty');
    expect((await send('GET', '/reports/not-a-uuid', analyst)).statusCode).toBe(400);
    expect((await send('POST', '/reports', reader, { Kind: 'Technical', Format: 'Csv' })).statusCode).toBe(
      403,
    );
  });

  it('keeps reports to their organisation', async () => {
    const { report, file } = await make({ Kind: 'Technical', Format: 'Html' });
    // One section per asset, in name order, each finding a row of its table.
    const sections = [...file.body.matchAll(/<section><h2>([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(sections).toEqual(['db-primary.example', 'lab-box.example', 'web-1.example']);
    expect(file.body.match(/<tr><td>/g)).toHaveLength(5);
    expect((await send('GET', `/reports/${report.Id}`, outsider)).statusCode).toBe(404);
    expect((await send('GET', `/reports/${report.Id}/download`, outsider)).statusCode).toBe(404);
    expect((await send('DELETE', `/reports/${report.Id}`, outsider)).statusCode).toBe(404);
    const theirs = (await send('GET', '/reports', outsider)).json();
    expect(theirs).toMatchObject({ Items: [], TotalCount: 0 });
    const ours = (await send('GET', '/reports?PageSize=2', reader)).json();
    expect(ours.Items).toHaveLength(2);
    expect(ours.NextCursor).not.toBeNull();
    const next = (await send('GET', `/reports?PageSize=100&Cursor=${ours.NextCursor}`, reader)).json();
    expect(next.Items.length).toBe(ours.TotalCount - 2);
    expect((await send('DELETE', `/reports/${report.Id}`, analyst)).statusCode).toBe(204);
    expect((await send('GET', `/reports/${report.Id}`, analyst)).statusCode).toBe(404);
  });
});
