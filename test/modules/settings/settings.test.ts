import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { nessusReport } from '../imports/nessus-report.js';

// Settings are one row per organisation that other writes also touch (the ticket counter): each
// write must leave what it does not own as it was.
describe.each(DB_KINDS)('organisation settings [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let manager: Credentials;
  let analyst: Credentials;

  const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const settings = async (who: Credentials = analyst) => (await send('GET', '/settings', who)).json();

  /** Imports a report of one host with findings of every severity; answers the host's id. */
  const importHost = async (ip: string, who: Credentials): Promise<string> => {
    const report = nessusReport([
      {
        ip,
        items: [
          { plugin: '1001', name: 'Critical thing', severity: 4 },
          { plugin: '1002', name: 'High thing', severity: 3 },
          { plugin: '1003', name: 'Medium thing', severity: 2 },
          { plugin: '1004', name: 'Low thing', severity: 1 },
        ],
      },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(who), 'content-type': 'application/xml' },
      payload: report,
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const assets = (await send('GET', `/assets?Search=${ip}`, who)).json();
    return assets.Items[0].Id as string;
  };
  const dueDates = async (assetId: string, who: Credentials) => {
    const list = (await send('GET', `/findings?AssetId=${assetId}&PageSize=100`, who)).json();
    return Object.fromEntries(
      list.Items.map((f: { Title: string; DueAt: string | null }) => [f.Title, f.DueAt]),
    );
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('keeps the default SLAs when the first ticket is created', async () => {
    const before = await settings();
    expect(before).toEqual({
      SlaDays: { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null },
      KevSlaDays: 14,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    const ticket = await send('POST', '/tickets', analyst, { Title: 'x' });
    expect(ticket.statusCode).toBe(201);
    expect(await settings()).toEqual(before);
    expect((await send('POST', '/tickets', analyst, { Title: 'y' })).json().Number).toBe(
      ticket.json().Number + 1,
    );
    expect(await settings()).toEqual(before);
  });

  it('gives findings imported after the first ticket their due dates, and an asset edit keeps them', async () => {
    const assetId = await importHost('10.61.0.1', analyst);
    const due = await dueDates(assetId, analyst);
    // Imported at the test clock's noon: 7, 30, 90 and 180 days later.
    expect(due).toEqual({
      'Critical thing': '2026-11-28T12:00:00.000Z',
      'High thing': '2026-12-21T12:00:00.000Z',
      'Medium thing': '2027-02-19T12:00:00.000Z',
      'Low thing': '2027-05-20T12:00:00.000Z',
    });
    const before = await settings();
    const edit = await send('PATCH', `/assets/${assetId}`, manager, { Criticality: 5, InternetFacing: true });
    expect(edit.statusCode).toBe(200);
    expect(await dueDates(assetId, analyst)).toEqual(due);
    expect(await settings()).toEqual(before);
  });

  it('keeps an organisation’s own SLAs through tickets and asset edits', async () => {
    const org = await t.services.organizations.create('Own SLAs');
    const own = await t.userWithKey('Manager', org);
    const sla = { Critical: 3, High: 14, Medium: 60, Low: 120, Info: 365 };
    expect((await send('PUT', '/settings', own, { SlaDays: sla })).statusCode).toBe(200);
    const ticket = await send('POST', '/tickets', own, { Title: 'first of this organisation' });
    expect(ticket.statusCode).toBe(201);
    expect((await settings(own)).SlaDays).toEqual(sla);
    const assetId = await importHost('10.61.0.2', own);
    const due = await dueDates(assetId, own);
    expect(due['Critical thing']).toBe('2026-11-24T12:00:00.000Z');
    await send('PATCH', `/assets/${assetId}`, own, { Criticality: 1 });
    expect(await dueDates(assetId, own)).toEqual(due);
    expect((await settings(own)).SlaDays).toEqual(sla);
  });

  it('keeps the ticket numbers counting when the SLAs change', async () => {
    const org = await t.services.organizations.create('Counting');
    const own = await t.userWithKey('Manager', org);
    expect((await send('POST', '/tickets', own, { Title: 'a' })).json().Number).toBe(1);
    const sla = { Critical: 1, High: 2, Medium: 3, Low: 4, Info: null };
    expect((await send('PUT', '/settings', own, { SlaDays: sla })).statusCode).toBe(200);
    expect((await send('POST', '/tickets', own, { Title: 'b' })).json().Number).toBe(2);
  });

  it('sets the KEV SLA next to the severity SLAs, and refuses what is not a number of days', async () => {
    const org = await t.services.organizations.create('KEV SLA');
    const own = await t.userWithKey('Manager', org);
    const reader = await t.userWithKey('ReadOnly', org);
    const sla = { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null };
    const put = (body: unknown, who = own) => send('PUT', '/settings', who, body);
    expect((await put({ SlaDays: sla, KevSlaDays: 5 })).json()).toEqual({
      SlaDays: sla,
      KevSlaDays: 5,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    expect(await settings(reader)).toEqual({
      SlaDays: sla,
      KevSlaDays: 5,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    // Left out: unchanged (clients that know only the severity SLAs keep working).
    expect((await put({ SlaDays: { ...sla, High: 20 } })).json()).toEqual({
      SlaDays: { ...sla, High: 20 },
      KevSlaDays: 5,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    // null: KEV findings are due by their severity alone.
    expect((await put({ SlaDays: sla, KevSlaDays: null })).json().KevSlaDays).toBeNull();
    for (const bad of [0, -3, 3651, 2.5, '14', true]) {
      const res = await put({ SlaDays: sla, KevSlaDays: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.stringify(res.json().errors)).toContain('KevSlaDays');
    }
    expect((await put({ SlaDays: sla, KevSlaDays: 5 }, reader)).statusCode).toBe(403);
    expect((await settings(reader)).KevSlaDays).toBeNull();
    // A first ticket keeps it too.
    await put({ SlaDays: sla, KevSlaDays: 9 });
    expect((await send('POST', '/tickets', own, { Title: 'first' })).statusCode).toBe(201);
    expect((await settings(reader)).KevSlaDays).toBe(9);
  });

  it('keeps a time zone, refuses one that is not IANA, and moves the daily history schedule with it', async () => {
    const org = await t.services.organizations.create('Time zones');
    const own = await t.userWithKey('Manager', org);
    const reader = await t.userWithKey('ReadOnly', org);
    const sla = { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null };
    const put = (body: unknown, who = own) => send('PUT', '/settings', who, body);
    expect((await settings(reader)).TimeZone).toBe('UTC');
    const set = await put({ SlaDays: sla, TimeZone: 'Europe/Berlin' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().TimeZone).toBe('Europe/Berlin');
    // Left out: unchanged.
    expect((await put({ SlaDays: sla })).json().TimeZone).toBe('Europe/Berlin');
    for (const bad of ['Mars/Olympus', 'CEST+2', '', 'x'.repeat(65), 3]) {
      const res = await put({ SlaDays: sla, TimeZone: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.stringify(res.json().errors)).toContain('TimeZone');
    }
    expect((await settings(reader)).TimeZone).toBe('Europe/Berlin');
    const schedule = await t.services.scheduler.get(org.id, 'history-snapshot');
    expect(schedule?.rule).toEqual({ type: 'cron', expression: '10 0 * * *', timeZone: 'Europe/Berlin' });
  });
});
