import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// The web app's scan pages list a scan's findings (GET /findings?ScanId=…) and a finding's page
// names the scan that found it (FoundBy). Findings come from real ingestion of scan results.
const SYSTEM_SCAN = '01900000-0000-7000-8000-00000000b001';
const OTHER_SCAN = '01900000-0000-7000-8000-00000000b002';
const WEB_SCAN = '01900000-0000-7000-8000-00000000b003';
let runSeq = 0;
const runId = () => `01900000-0000-7000-8000-${String(++runSeq).padStart(12, '0')}`;

describe.each(DB_KINDS)('findings of a Rampart scan [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let reader: Credentials;
  let ctx: ServiceContext;
  let systemImport = '';

  const get = (url: string, who: Credentials = reader) =>
    t.app.inject({ method: 'GET', url: `/api/latest${url}`, headers: authHeaders(who) });

  const telnet = (address: string) => ({
    address,
    hostname: null,
    answered: true,
    openPorts: [23],
    closedPorts: [],
    filtered: 0,
    unscannedPorts: [],
    services: [],
    checks: [{ checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' }],
    budgetExhausted: null,
  });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    reader = await t.userWithKey('ReadOnly');
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const scanName = 'Lab hosts';
    const first = await t.services.scanResults.ingestSystem(ctx, {
      scanId: SYSTEM_SCAN,
      scanName,
      runId: runId(),
      hosts: [telnet('198.18.20.1')],
    });
    systemImport = first.importId;
    await t.services.scanResults.ingestSystem(ctx, {
      scanId: OTHER_SCAN,
      scanName: 'Other hosts',
      runId: runId(),
      hosts: [telnet('198.18.20.2')],
    });
    await t.services.scanResults.ingestWeb(ctx, {
      scanId: WEB_SCAN,
      scanName: 'Shop',
      runId: runId(),
      urls: [
        {
          url: 'https://198.18.20.3/',
          finalUrl: null,
          status: 200,
          address: '198.18.20.3',
          software: [],
          checks: [
            { checkId: 'web.header-hsts', port: null, url: 'https://198.18.20.3/', evidence: 'no HSTS' },
          ],
          headerScore: { score: 40, grade: 'D' },
          notes: [],
          error: null,
          budgetExhausted: null,
        },
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('lists only the findings of the scan named by ScanId, system or web', async () => {
    const system = await get(`/findings?ScanId=${SYSTEM_SCAN}`);
    expect(system.statusCode).toBe(200);
    expect(system.json().Items.map((f: { AssetName: string }) => f.AssetName)).toEqual(['198.18.20.1']);
    const web = await get(`/findings?ScanId=${WEB_SCAN}`);
    expect(web.json().Items).toHaveLength(1);
    expect(web.json().Items[0].Location).toMatchObject({ Kind: 'Url', Url: 'https://198.18.20.3/' });
    const none = await get('/findings?ScanId=01900000-0000-7000-8000-00000000bfff');
    expect(none.json().Items).toEqual([]);
    expect((await get('/findings')).json().Items).toHaveLength(3);
  });

  it('refuses a ScanId that is not a UUID, naming it', async () => {
    const res = await get('/findings?ScanId=system-scan');
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('ScanId');
  });

  it('names the scan and the import of its last run on the finding (FoundBy), null for imported ones', async () => {
    const [finding] = (await get(`/findings?ScanId=${SYSTEM_SCAN}`)).json().Items;
    const detail = (await get(`/findings/${finding.Id}`)).json();
    expect(detail.FoundBy).toEqual({ Kind: 'System', ScanId: SYSTEM_SCAN, ImportId: systemImport });
    expect(detail.Evidence).toContain('login:');
    const [web] = (await get(`/findings?ScanId=${WEB_SCAN}`)).json().Items;
    expect((await get(`/findings/${web.Id}`)).json().FoundBy).toMatchObject({
      Kind: 'Web',
      ScanId: WEB_SCAN,
    });

    const post = (url: string, body: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/api/latest${url}`,
        headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const asset = (await post('/assets', { Kind: 'Host', Name: 'db-9', IpAddresses: ['10.9.9.9'] })).json();
    const made = await post('/findings', {
      AssetId: asset.Id,
      Vulnerability: { Title: 'Hand-made', Severity: 'Low' },
    });
    expect(made.statusCode).toBeLessThan(300);
    expect((await get(`/findings/${made.json().Id}`)).json().FoundBy).toBeNull();
  });

  it('keeps another organisation out: its reader sees none of these findings by ScanId', async () => {
    const other = await t.services.organizations.create('Elsewhere');
    const outsider = await t.userWithKey('Admin', other);
    expect((await get(`/findings?ScanId=${SYSTEM_SCAN}`, outsider)).json().Items).toEqual([]);
  });
});
