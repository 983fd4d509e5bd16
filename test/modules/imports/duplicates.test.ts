import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../../src/importers/index.js';
import type { ImportRecord } from '../../../src/importers/types.js';
import { uuidv7 } from '../../../src/lib/uuidv7.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { FIXTURES, head, type ManifestEntry, parseFixture } from '../../importers/helpers.js';

// A report may name one thing twice: the same service on two rows, the same host spelt two ways.
// Every merge statement of an import must take its batch's duplicates (one statement may not
// touch the same row twice) and end with what the single copy gives.

/** Each fixture file of test/fixtures/manifest.json once, with the importer that detects it. */
function fixtureFiles(): { format: string; file: string }[] {
  const manifest = JSON.parse(readFileSync(`${FIXTURES}/manifest.json`, 'utf8')) as ManifestEntry[];
  const seen = new Set<string>();
  return manifest
    .filter((e) => !seen.has(e.file) && seen.add(e.file))
    .map((e) => ({ format: e.format, file: e.file }));
}

/**
 * Every record three times: as it is, again, and with its asset spelt another way (a display
 * name added or left out), which stages it under another key that resolves to the same asset.
 */
function repeated(records: ImportRecord[]): ImportRecord[] {
  return records.flatMap((r) => {
    const { name, ...rest } = r.asset;
    const respelt = name === undefined ? { ...rest, name: 'the same asset' } : rest;
    return [r, structuredClone(r), { ...r, asset: respelt } as ImportRecord];
  });
}

describe.each(DB_KINDS)('duplicates inside one report [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  /** What an organisation holds, without ids, names or times: findings, services, software. */
  const holdings = async (organizationId: string) => {
    const db = tdb.database.db;
    const findings = await sql<Record<string, unknown>>`
      select a.kind, a.ip_addresses, a.fqdn, a.hostname, a.url, v.key as vulnerability, f.title, f.severity,
        f.state, f.location_kind, f.port, f.protocol, f.url as location_url, f.parameter, f.file_path, f.line,
        f.package_name, f.package_version, f.due_at
      from findings f
      join assets a on a.organization_id = f.organization_id and a.id = f.asset_id
      join vulnerabilities v on v.organization_id = f.organization_id and v.id = f.vulnerability_id
      where f.organization_id = ${organizationId}`.execute(db);
    const services = await sql<Record<string, unknown>>`
      select a.ip_addresses, a.fqdn, s.port, s.protocol, s.name, s.product, s.version
      from asset_services s join assets a on a.organization_id = s.organization_id and a.id = s.asset_id
      where s.organization_id = ${organizationId}`.execute(db);
    const software = await sql<Record<string, unknown>>`
      select a.kind, a.url, s.name, s.version, s.category
      from asset_software s join assets a on a.organization_id = s.organization_id and a.id = s.asset_id
      where s.organization_id = ${organizationId}`.execute(db);
    const sorted = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r)).sort();
    return {
      findings: sorted(findings.rows),
      services: sorted(services.rows),
      software: sorted(software.rows),
    };
  };

  const ingest = async (organizationId: string, format: string, records: ImportRecord[]) => {
    const ctx: ServiceContext = { organizationId, actor: { type: 'system', id: null } };
    return t.services.imports.ingestRecords(ctx, {
      importId: uuidv7(),
      source: format,
      format,
      scopeName: 'fixture',
      displayName: format,
      content: { sha256: '0'.repeat(64), size: 1 },
      records,
    });
  };

  it('imports a Tenable.sc export that names one service on two rows', async () => {
    const header =
      '"Plugin","Plugin Name","Family","Severity","IP Address","Protocol","Port","Exploit?","Repository","MAC Address","DNS Name","NetBIOS Name","Plugin Output"';
    const row = (plugin: string, name: string, dns: string) =>
      `"${plugin}","${name}","General","High","10.62.0.5","TCP","443","No","Individual Scan","fa:16:3e:e6:0b:98","${dns}","","Plugin Output: seen"`;
    // The same host, protocol and port twice; the second row lacks the DNS name (Tenable.sc
    // fills it from whichever scan saw the host), so the host is staged under two keys.
    const report = [
      header,
      row('42873', 'SSL Medium Strength Cipher Suites Supported (SWEET32)', 'web.example.com'),
      row('104743', 'TLS Version 1.0 Protocol Detection', ''),
    ].join('\n');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?FileName=sc.csv',
      headers: { ...authHeaders(analyst), 'content-type': 'text/csv' },
      payload: report,
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = (
      await t.app.inject({ url: `/api/latest/imports/${res.json().Id}`, headers: authHeaders(analyst) })
    ).json();
    expect(done).toMatchObject({ State: 'Completed', Error: null, Counts: { New: 2, AssetsCreated: 1 } });
    const assets = (
      await t.app.inject({ url: '/api/latest/assets?Search=10.62.0.5', headers: authHeaders(analyst) })
    ).json();
    expect(assets.TotalCount).toBe(1);
    const services = (
      await t.app.inject({
        url: `/api/latest/assets/${assets.Items[0].Id}/services`,
        headers: authHeaders(analyst),
      })
    ).json();
    expect(services.map((s: { Port: number; Protocol: string }) => `${s.Port}/${s.Protocol}`)).toEqual([
      '443/tcp',
    ]);
  });

  const registry = defaultRegistry();
  const files = fixtureFiles();
  const imported = new Set<string>();

  it.each(files)(
    'imports $file with every record repeated as the single copy',
    async ({ format, file }) => {
      const importer = registry.detect(head(file))?.importer;
      if (!importer) return; // A fixture no importer claims (a wrong-format sample) is read by none.
      const parsed = await parseFixture(importer, file).catch(() => undefined);
      if (!parsed) return; // A broken or hostile fixture: its own tests check that it fails.
      const tag = createHash('sha256').update(file).digest('hex').slice(0, 12);
      const single = await t.services.organizations.create(`single ${tag}`);
      const many = await t.services.organizations.create(`repeated ${tag}`);
      const once = await ingest(single.id, importer.tool, parsed.records);
      const thrice = await ingest(many.id, importer.tool, repeated(parsed.records));
      expect(thrice.counts.Findings).toBe(3 * (once.counts.Findings ?? 0));
      const expected = await holdings(single.id);
      expect(await holdings(many.id)).toEqual(expected);
      if (Object.values(expected).some((rows) => rows.length > 0)) imported.add(format);
      // A few samples (anchore_grype/many_vulns3.json, cyclonedx/grype_dd_1_14_1.xml) take 15 s to
      // merge once on the embedded database, duplicates or not; a busy machine doubles that.
    },
    240_000,
  );

  it('covered every format of the manifest with something imported', () => {
    const formats = [...new Set(files.map((f) => f.format))];
    expect(formats.length).toBeGreaterThan(20);
    // sslscan's samples name their host only as "www.target.com" in the hostname field: a dotted
    // host name identifies a host too (it was left out, and the host with it).
    expect(formats.filter((f) => !imported.has(f))).toEqual([]);
  });
});
