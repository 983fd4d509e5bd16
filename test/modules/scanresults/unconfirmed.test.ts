import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { ScannedService, SystemHostResult } from '../../../src/scanning/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall } from '../../helpers/scan-nodes.js';

// A stock Debian 12 sshd (OpenSSH_9.2p1 Debian-2+deb12u10) matched upstream CVEs
// that Debian fixed long ago (CVE-2023-38408 in deb12u1, CVE-2024-6387 in deb12u3). Without
// Debian's advisory data Rampart cannot decide them: they are Unconfirmed (risk 0, no due date,
// hidden from lists unless asked for), and a re-scan once the data is loaded decides them.

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'intel');
const SCAN = '01900000-0000-7000-8000-00000000b001';
let runSeq = 0;
const runId = () => `01900000-0000-7000-8000-0000000b${String(++runSeq).padStart(4, '0')}`;

const sshd = (revision: string): ScannedService => ({
  port: 22,
  protocol: 'tcp',
  service: 'ssh',
  product: 'OpenSSH',
  version: '9.2p1',
  cpes: ['cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*'],
  confidence: 0.9,
  banner: `SSH-2.0-OpenSSH_9.2p1 Debian-${revision}`,
  evidence: 'SSH identification line',
  tls: false,
  detectedBy: 'rampart',
});

const host = (address: string, revision: string): SystemHostResult => ({
  address,
  hostname: null,
  openPorts: [22],
  closedPorts: [],
  filtered: 0,
  unscannedPorts: [],
  services: [sshd(revision)],
  checks: [],
  budgetExhausted: null,
  answered: true,
});

interface WireFinding {
  Id: string;
  Title: string;
  State: string;
  Confidence: string;
  RiskScore: number;
  DueAt: string | null;
  AssetName: string;
}

describe.each(DB_KINDS)('unconfirmed upstream CVEs on distribution builds [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;
  const STOCK = '198.18.30.1';
  const OLD = '198.18.30.2';

  const scan = (hosts: SystemHostResult[]) =>
    t.services.scanResults.ingestSystem(ctx, {
      scanId: SCAN,
      scanName: 'Debian hosts',
      runId: runId(),
      hosts,
    });
  const list = async (query: string): Promise<WireFinding[]> => {
    const res = await apiCall(t, 'GET', `/findings?PageSize=500${query}`, { who: t.admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().Items;
  };
  const on = (items: WireFinding[], address: string) => items.filter((f) => f.AssetName.includes(address));

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    for (const cve of ['CVE-2023-38408', 'CVE-2024-6387'])
      await t.services.intel.loadFile(join(FIXTURES, 'nvd', `${cve}.json`), { feed: 'nvd' });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('without Debian data: unconfirmed, scored 0, not due, hidden by default, saying what data is missing', async () => {
    const result = await scan([host(STOCK, '2+deb12u10'), host(OLD, '2+deb12u2')]);
    expect(result.counts.New).toBe(4);
    expect(result.backports.map((n) => n.status)).toEqual(Array(4).fill('Unconfirmed'));

    // The default list (and so every count the web app shows) leaves them out.
    expect(await list('')).toEqual([]);
    const unconfirmed = await list('&Confidence=Unconfirmed');
    expect(unconfirmed).toHaveLength(4);
    for (const f of unconfirmed) {
      expect(f).toMatchObject({ State: 'Open', Confidence: 'Unconfirmed', RiskScore: 0, DueAt: null });
    }
    expect(await list('&Confidence=Any')).toHaveLength(4);

    const regre = on(unconfirmed, STOCK).find((f) => f.Title === 'CVE-2024-6387')!;
    const detail = await apiCall(t, 'GET', `/findings/${regre.Id}`, { who: t.admin });
    expect(detail.json().Confidence).toBe('Unconfirmed');
    expect(detail.json().Evidence).toContain(
      'Distribution: unconfirmed: Rampart holds no Debian advisory data for openssh 9.2p1 (OSV Debian ecosystem)',
    );
    expect(detail.json().Evidence).toContain('rampart intel load <file>');
  });

  it("the original's integration call for an asset's open findings leaves them out too", async () => {
    const assets = await t.services.assets.list(ctx, { search: STOCK }, 10);
    const asset = assets.items.find((a) => a.ipAddresses.includes(STOCK))!;
    const res = await apiCall(
      t,
      'POST',
      `/assets/${asset.id}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/50`,
      { who: t.admin, body: {}, channel: 'integration' },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().Items).toEqual([]);
  });

  it('a value of Confidence other than the three is a 400 naming it', async () => {
    const res = await apiCall(t, 'GET', '/findings?Confidence=Maybe', { who: t.admin });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body).toContain('Confidence');
  });

  it('with Debian data loaded a re-scan decides them: Fixed ones close, an Affected one is confirmed at full severity', async () => {
    const dir = join(FIXTURES, 'osv-debian');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')))
      await t.services.intel.loadFile(join(dir, file), { feed: 'osv' });
    const result = await scan([host(STOCK, '2+deb12u10'), host(OLD, '2+deb12u2')]);
    expect(result.counts).toMatchObject({ New: 0, Fixed: 3 });
    expect(Object.fromEntries(result.backports.map((n) => [`${n.address} ${n.cveId}`, n.status]))).toEqual({
      [`${STOCK} CVE-2023-38408`]: 'Fixed',
      [`${STOCK} CVE-2024-6387`]: 'Fixed',
      [`${OLD} CVE-2023-38408`]: 'Fixed',
      [`${OLD} CVE-2024-6387`]: 'Affected',
    });

    // deb12u2 predates the regreSSHion fix: confirmed, scored and due like any other, and listed.
    const shown = await list('');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ Title: 'CVE-2024-6387', State: 'Open', Confidence: 'Confirmed' });
    expect(on(shown, OLD)).toHaveLength(1);
    expect(shown[0]!.RiskScore).toBeGreaterThan(0);
    expect(shown[0]!.DueAt).not.toBeNull();
    // The three Debian fixed are closed; never confirmed, they stay out of the default list.
    const closed = await list('&Confidence=Unconfirmed');
    expect(closed).toHaveLength(3);
    for (const f of closed) expect(f.State).toBe('Fixed');
  });
});
