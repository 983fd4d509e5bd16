import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up } from '../../../src/db/migrations/0026_rekey_check_vulnerabilities.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { SystemHostResult, WebUrlResult } from '../../../src/scanning/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// Findings of Rampart's checks made before check vulnerabilities were keyed by the catalogue
// (`rule:rampart system scan:<id>`) are found again by the next scan after the migration: the
// same finding, its state kept, not one Fixed and another New.

const SYSTEM_SCAN = '01900000-0000-7000-8000-00000000c001';
const WEB_SCAN = '01900000-0000-7000-8000-00000000c002';
let runSeq = 0;
const runId = () => `01900000-0000-7000-8000-${String(++runSeq).padStart(12, '0')}`;

const host: SystemHostResult = {
  address: '198.18.40.1',
  hostname: null,
  openPorts: [23, 443],
  closedPorts: [],
  filtered: 0,
  unscannedPorts: [],
  services: [],
  checks: [
    { checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' },
    { checkId: 'tls.certificate-expired', port: 443, url: null, evidence: 'notAfter …' },
  ],
  budgetExhausted: null,
  tlsChecked: true,
};

const site: WebUrlResult = {
  url: 'https://198.18.40.2/',
  finalUrl: 'https://198.18.40.2/',
  status: 200,
  address: '198.18.40.2',
  software: [],
  checks: [{ checkId: 'web.header-csp', port: null, url: 'https://198.18.40.2/', evidence: 'No CSP' }],
  headerScore: null,
  notes: [],
  error: null,
  budgetExhausted: null,
};

describe.each(DB_KINDS)('migration 0026: check vulnerabilities keyed by the catalogue [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;
  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('findings keyed the old way are found again by the next scans after it', async () => {
    const db = tdb.database.db;
    const results = t.services.scanResults;
    const system = () =>
      results.ingestSystem(ctx, { scanId: SYSTEM_SCAN, scanName: 'Hosts', runId: runId(), hosts: [host] });
    const web = () =>
      results.ingestWeb(ctx, { scanId: WEB_SCAN, scanName: 'Site', runId: runId(), urls: [site] });
    await system();
    await web();
    const before = (await t.services.findings.listOffset(ctx, {}, 0, 100)).items.map((f) => f.id).sort();
    expect(before).toHaveLength(3);

    // As the previous release stored them: keyed by the scan kind, dedup keys made from that.
    const oldKeys = sql`
      update vulnerabilities v set key = 'rule:rampart ' || case when v.plugin_id like 'web.%' then 'web' else 'system' end
        || ' scan:' || v.plugin_id
      where v.key like 'rule:rampart:%'`;
    await oldKeys.execute(db);
    await sql`
      update findings f set dedup_key = encode(sha256(convert_to(f.asset_id::text || '|' || v.key || '|' ||
        case f.location_kind when 'Port' then 'port:' || f.protocol || '/' || f.port
          when 'Url' then 'url:' || f.url || '#' else 'none' end, 'UTF8')), 'hex')
      from vulnerabilities v where v.id = f.vulnerability_id`.execute(db);
    // Without the migration, the next scan would fix them and open new ones.
    const keys = await sql<{ key: string }>`select key from vulnerabilities order by key`.execute(db);
    expect(keys.rows.map((r) => r.key)).toEqual([
      'rule:rampart system scan:cleartext.telnet',
      'rule:rampart system scan:tls.certificate-expired',
      'rule:rampart web scan:web.header-csp',
    ]);

    await up(db as unknown as Kysely<unknown>);

    const again = await system();
    expect(again.counts).toMatchObject({ New: 0, Fixed: 0 });
    const webAgain = await web();
    expect(webAgain.counts).toMatchObject({ New: 0, Fixed: 0 });
    const after = (await t.services.findings.listOffset(ctx, {}, 0, 100)).items;
    expect(after.map((f) => f.id).sort()).toEqual(before);
    expect(after.every((f) => f.state === 'Open')).toBe(true);
  });
});
