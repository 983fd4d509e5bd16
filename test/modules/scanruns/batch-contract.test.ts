import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { ScanKind, SystemHostResult, WebUrlResult } from '../../../src/scanning/types.js';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode } from '../../helpers/scan-nodes.js';

// The server checks every batch a node sends against the contract of the run's kind
// (src/scanning/contract.ts): a batch that breaks it is a 400 naming where, and nothing of it is
// applied; a batch that keeps it is handed on as it came.

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

const discoveredHost = (address: string) => ({
  address,
  hostname: 'files.lab.example',
  openPorts: [22, 445],
  closedPorts: [80],
  macAddress: '02:00:00:00:00:21',
  osGuess: 'Linux',
});

const systemHost = (address: string, extra: Partial<SystemHostResult> = {}): SystemHostResult => ({
  address,
  hostname: null,
  answered: true,
  openPorts: [23, 443],
  closedPorts: null,
  filtered: 3,
  unscannedPorts: [],
  services: [
    {
      port: 443,
      protocol: 'tcp',
      service: 'https',
      product: 'nginx',
      version: '1.18.0',
      cpes: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
      confidence: 0.9,
      banner: null,
      evidence: 'Server header',
      tls: true,
      detectedBy: 'rampart',
    },
  ],
  checks: [
    { checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' },
    {
      checkId: 'tls.legacy-version',
      port: 443,
      url: null,
      evidence: 'TLSv1 accepted',
      details: { accepted: ['TLSv1'] },
    },
  ],
  budgetExhausted: null,
  tlsChecked: true,
  ...extra,
});

const webUrl = (url: string, extra: Partial<WebUrlResult> = {}): WebUrlResult => ({
  url,
  finalUrl: url,
  status: 200,
  address: '198.18.0.20',
  software: [{ header: 'Server', value: 'nginx/1.18.0', product: 'nginx', version: '1.18.0', cpes: [] }],
  checks: [{ checkId: 'web.cookie-flags', port: 443, url, evidence: 'no Strict-Transport-Security header' }],
  headerScore: { score: 40, grade: 'C' },
  notes: ['SSLv3 cannot be probed from this node'],
  error: null,
  budgetExhausted: null,
  tlsPort: 443,
  httpCounterpart: null,
  ...extra,
});

const refused = {
  refused: true,
  address: '198.18.0.66',
  rule: 'Excluded',
  message: '198.18.0.66 is excluded from scans.',
};

describe.each(DB_KINDS)('scan run batches checked against the contract [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let ctx: ServiceContext;
  let nodeKey: string;
  let sources = 0;
  const applied: { kind: ScanKind; runId: string; items: unknown[] }[] = [];

  const batch = (run: string, seq: number, items: unknown[]) =>
    apiCall(t, 'PUT', `/scanruns/${run}/attempts/1/batches/${seq}`, { nodeKey, body: { Items: items } });

  /** A run of `scanKind`, claimed by the test's node. */
  const claimed = async (scanKind: ScanKind): Promise<string> => {
    sources += 1;
    const run = await t.services.scanRuns.queue(ctx, {
      kind: scanKind,
      sourceId: `0193a5c4-7f10-7c3e-9d41-${String(sources).padStart(12, '0')}`,
      sourceName: `${scanKind} run`,
      nodeId: null,
      spec: {},
    });
    const res = await apiCall(t, 'POST', '/scanruns/claim', { nodeKey, body: { Kinds: [scanKind] } });
    expect(res.json().Id).toBe(run.id);
    return run.id;
  };

  const appliedTo = (runId: string) => applied.filter((a) => a.runId === runId).flatMap((a) => a.items);
  const batchRows = (runId: string) =>
    tdb.database.db.selectFrom('scan_run_batches').select('seq').where('run_id', '=', runId).execute();

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_LOCAL_SCAN_NODE: 'false' } });
    admin = t.admin;
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    for (const k of ['Discovery', 'System', 'Web'] as const)
      t.services.scanRuns.onBatch(k, async (run, items) => {
        applied.push({ kind: k, runId: run.id, items });
      });
    ({ nodeKey } = await enrolNode(t, admin, { Kinds: ['Discovery', 'System', 'Web'], Capacity: 64 }));
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('accepts batches that keep the contract of each kind, and hands the results on as they came', async () => {
    const discovery = await claimed('Discovery');
    const hosts = [discoveredHost('198.18.0.35'), discoveredHost('2001:db8::35')];
    const res = await batch(discovery, 1, [hosts[0], refused, hosts[1]]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ Applied: true, StopRequested: false });
    expect(appliedTo(discovery)).toEqual(hosts);
    expect((await apiCall(t, 'GET', `/scanruns/${discovery}`, { who: admin })).json().Refused).toEqual({
      Count: 1,
      Addresses: [
        { Address: '198.18.0.66', Rule: 'Excluded', Message: '198.18.0.66 is excluded from scans.' },
      ],
    });

    const system = await claimed('System');
    const { answered: _answered, ...older } = systemHost('198.18.0.36');
    expect((await batch(system, 1, [systemHost('198.18.0.35'), older])).statusCode).toBe(200);
    // A node that predates `answered` reported only hosts it took for up: the contract says true.
    expect(appliedTo(system)).toEqual([systemHost('198.18.0.35'), systemHost('198.18.0.36')]);

    const web = await claimed('Web');
    const urls = [
      webUrl('https://198.18.0.20/'),
      webUrl('http://198.18.0.20/', { tlsPort: null, checks: [] }),
    ];
    expect((await batch(web, 1, urls)).statusCode).toBe(200);
    expect(appliedTo(web)).toEqual(urls);
  });

  it.each<[ScanKind, string, unknown[], string]>([
    [
      'Discovery',
      'an address that is no IP',
      [discoveredHost('198.18.0.1'), discoveredHost('nonsense')],
      '/Items/1/address',
    ],
    [
      'Discovery',
      'a port out of range',
      [{ ...discoveredHost('198.18.0.1'), openPorts: [22, 70000] }],
      '/Items/0/openPorts/1',
    ],
    [
      'Discovery',
      'a field the contract does not name',
      [{ ...discoveredHost('198.18.0.1'), note: 'x' }],
      '/Items/0',
    ],
    ['Discovery', 'a missing field', [{ address: '198.18.0.1' }], '/Items/0/hostname'],
    [
      'System',
      "a check's port out of range",
      [
        systemHost('198.18.0.1'),
        systemHost('198.18.0.2'),
        systemHost('198.18.0.3'),
        systemHost('198.18.0.4', {
          checks: [{ checkId: 'cleartext.telnet', port: 70000, url: null, evidence: '' }],
        }),
      ],
      '/Items/3/checks/0/port',
    ],
    [
      'System',
      'a check the catalogue does not hold for system scans',
      [
        systemHost('198.18.0.1', {
          checks: [{ checkId: 'web.cookie-flags', port: 443, url: null, evidence: '' }],
        }),
      ],
      '/Items/0/checks/0',
    ],
    [
      'System',
      'a confidence above 1',
      [systemHost('198.18.0.1', { services: [{ ...systemHost('198.18.0.1').services[0]!, confidence: 2 }] })],
      '/Items/0/services/0/confidence',
    ],
    [
      'System',
      'more than 64 closed ports listed',
      [systemHost('198.18.0.1', { closedPorts: Array.from({ length: 65 }, (_, i) => i + 1) })],
      '/Items/0/closedPorts',
    ],
    ['Web', 'a status out of range', [webUrl('https://198.18.0.20/', { status: 42 })], '/Items/0/status'],
    [
      'Web',
      'software with too long a value',
      [
        webUrl('https://198.18.0.20/', {
          software: [{ header: 'Server', value: 'x'.repeat(1001), product: null, version: null, cpes: [] }],
        }),
      ],
      '/Items/0/software/0/value',
    ],
    [
      'Web',
      'check details over 16,000 characters of JSON',
      [
        webUrl('https://198.18.0.20/', {
          checks: [
            {
              checkId: 'web.cookie-flags',
              port: null,
              url: null,
              evidence: '',
              details: { big: 'x'.repeat(16_001) },
            },
          ],
        }),
      ],
      '/Items/0/checks/0/details',
    ],
    [
      'Web',
      'a refused address with an unknown rule',
      [webUrl('https://198.18.0.20/'), { ...refused, rule: 'Whatever' }],
      '/Items/1/rule',
    ],
  ])(
    'refuses a %s batch with %s: 400 naming the path, nothing applied',
    async (scanKind, _what, items, pointer) => {
      const runId = await claimed(scanKind);
      const res = await batch(runId, 1, items);
      expect(res.statusCode, res.body).toBe(400);
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      const problem = res.json();
      expect(problem.detail).toContain(`The batch breaks the contract of ${scanKind} results: ${pointer}`);
      expect(problem.errors.map((e: { path: string }) => e.path)).toContain(pointer);
      // Nothing of it was applied, nor recorded: the same batch, mended, is applied as new.
      expect(appliedTo(runId)).toEqual([]);
      expect(await batchRows(runId)).toEqual([]);
      const again = await batch(runId, 1, scanKind === 'Discovery' ? [discoveredHost('198.18.0.9')] : []);
      expect(again.json()).toEqual({ Applied: true, StopRequested: false });
    },
  );

  it('checks with the very schema objects the node checks with: one contract module, both ends', async () => {
    const contract = path.join(ROOT, 'src/scanning/contract.ts');
    const importsContract = (file: string) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      return [...text.matchAll(/from '([^']+)'/g)]
        .map((m) => path.resolve(path.dirname(path.join(ROOT, file)), m[1]!.replace(/\.js$/, '.ts')))
        .includes(contract);
    };
    // The node (the agent, for a claimed spec) and the server (the batch) import the one module.
    expect(importsContract('src/scanning/node/agent.ts')).toBe(true);
    expect(importsContract('src/modules/scanruns/service.ts')).toBe(true);
    // And no other file holds a schema of a spec or a result of its own.
    const declaring: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (
          /\.(ts|mjs)$/.test(entry.name) &&
          /\b(?:DiscoverySpec|SystemSpec|WebSpec|DiscoveredHost|SystemHostResult|WebUrlResult|RefusedAddress)Schema\s*=/.test(
            fs.readFileSync(full, 'utf8'),
          )
        )
          declaring.push(path.relative(ROOT, full));
      }
    };
    walk(path.join(ROOT, 'src'));
    expect(declaring).toEqual(['src/scanning/contract.ts']);
    // The objects both ends reach are the same objects.
    const fromTypes = await import('../../../src/scanning/types.js');
    const fromContract = await import('../../../src/scanning/contract.js');
    expect(fromTypes.refusedAddressOf).toBe(fromContract.refusedAddressOf);
    expect(fromContract.RESULT_SCHEMAS.System).toBe(fromContract.SystemHostResultSchema);
    expect(fromContract.SPEC_SCHEMAS.Web).toBe(fromContract.WebSpecSchema);
  });
});
