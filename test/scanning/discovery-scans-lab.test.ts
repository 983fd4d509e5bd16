// Discovery scans from the API to the hosts, in a lab of network namespaces the test builds
// (test/lab): the server's own local scan node runs the real engine; an Admin allows the lab's
// /24 and excludes one host, which must never receive a packet; a host taken away between runs
// shows as Gone. Traffic goes only to the lab, which the test first proves is routed only there.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSpec } from '../../src/scanning/contract.js';
import { reverseResolver } from '../../src/scanning/discovery/index.js';
import { discoveryExecutor } from '../../src/scanning/node/discovery-executor.js';
import { buildTestApp, type Credentials, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { apiCall } from '../helpers/scan-nodes.js';
import { createLab, type Lab, labAvailable } from '../lab/lab.js';

const SETTINGS = {
  Ports: [22, 80, 443, 8080],
  TimeoutMs: 1000,
  Retries: 1,
  MaxInFlight: 128,
  ConnectionsPerSecond: 500,
  PerHostInFlight: 4,
  ReverseDns: true,
  UseNmap: false,
};

describe.runIf(labAvailable()).each(DB_KINDS)('[lab] discovery scans through the server [%s]', (kind) => {
  let lab: Lab;
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    apiCall(t, method, url, { who: admin, body });

  beforeAll(async () => {
    lab = await createLab([
      { name: 'ssh', index: 10, daemons: ['sshd'], hostname: 'ssh.lab.test' },
      { name: 'web', index: 11, daemons: ['nginx'], dropPorts: [443], hostname: 'web.lab.test' },
      { name: 'quiet', index: 13 },
      { name: 'wall', index: 14, dropAllTcp: true },
      { name: 'down', index: 15, state: 'down' },
      { name: 'excluded', index: 17, daemons: ['http'] },
      { name: 'leaving', index: 18, daemons: ['http'] },
    ]);
    tdb = await newTestDatabase(kind);
    const reverse = reverseResolver({ servers: [lab.dnsServer!], timeoutMs: 2000 });
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
      scanExecutors: new Map([['Discovery', discoveryExecutor({ reverse })]]),
    });
    admin = t.admin;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    lab?.teardown();
  });

  const address = (name: string) => lab.hosts.get(name)!.address;

  /** Starts the scan, waits (bounded) for its run to end, answers the run's report. */
  const runScan = async (scanId: string) => {
    const started = await call('POST', `/discoveryscans/${scanId}/runs`);
    expect(started.statusCode, started.body).toBe(201);
    await expect
      .poll(async () => (await call('GET', `/discoveryscans/${scanId}`)).json().RunState, { timeout: 60_000 })
      .toBe('Completed');
    const report = await call('GET', `/discoveryscans/${scanId}/reports/${started.json().Id}/hosts`);
    expect(report.statusCode).toBe(200);
    return report.json() as {
      Counts: Record<string, number>;
      Items: {
        IpAddress: string;
        Hostname: string | null;
        OpenPorts: number[];
        MacAddress: string | null;
        Status: string;
      }[];
    };
  };

  it('finds exactly the live hosts with the local node, never touches the excluded one, and marks a host gone', async () => {
    lab.assertRoutedIntoLab();
    expect((await call('POST', '/allowedtargets', { Kind: 'Allowed', Target: lab.subnet })).statusCode).toBe(
      201,
    );
    expect(
      (await call('POST', '/allowedtargets', { Kind: 'Excluded', Target: address('excluded') })).statusCode,
    ).toBe(201);
    // A range outside the allowed ones is refused by the server.
    const outside = await call('POST', '/discoveryscans', {
      Name: 'Outside',
      ScanTargets: [{ Range: '198.19.255.0/24' }],
    });
    expect(outside.statusCode).toBe(422);
    const template = await call('POST', '/scantemplates', { Name: 'Lab', Settings: SETTINGS });
    const scan = await call('POST', '/discoveryscans', {
      Name: 'Lab sweep',
      ScanTargets: [{ Range: `${address('ssh')}-${address('leaving')}`, Name: 'lab' }],
      TemplateId: template.json().Id,
    });
    expect(scan.statusCode, scan.body).toBe(201);

    const first = await runScan(scan.json().Id);
    const live = ['ssh', 'web', 'quiet', 'wall', 'leaving'].map(address);
    expect(first.Items.map((h) => h.IpAddress).sort()).toEqual([...live].sort());
    expect(first.Counts).toMatchObject({ New: 5, Gone: 0 });
    const ssh = first.Items.find((h) => h.IpAddress === address('ssh'))!;
    expect(ssh).toMatchObject({
      Hostname: 'ssh.lab.test',
      OpenPorts: [22],
      MacAddress: lab.hosts.get('ssh')!.mac,
    });
    expect(first.Items.find((h) => h.IpAddress === address('web'))!.OpenPorts).toEqual([80]);
    // Excluded by the Admin: not one packet, not even an ARP request.
    expect(lab.packetsReceived('excluded')).toEqual({ ip: 0, arp: 0 });
    // The hosts are assets now.
    const assets = await call('GET', `/assets?Search=${address('ssh')}`);
    expect(assets.json().Items).toHaveLength(1);

    const leaving = address('leaving');
    lab.removeHost('leaving');
    t.clock.now = new Date(t.clock.now.getTime() + 3600_000);
    const second = await runScan(scan.json().Id);
    expect(second.Counts).toMatchObject({ New: 0, Seen: 4, Gone: 1 });
    expect(second.Items.find((h) => h.Status === 'Gone')!.IpAddress).toBe(leaving);
    expect(lab.packetsReceived('excluded')).toEqual({ ip: 0, arp: 0 });
  });
});

// A node trusts no run: a spec whose targets reach beyond the policy it carries (a server bug, a
// forged run) has every address outside the policy refused before its first packet.
describe.runIf(labAvailable())('[lab] a scan node handed targets outside the policy', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await createLab([
      { name: 'allowed', index: 10, daemons: ['http'] },
      { name: 'outside', index: 11, daemons: ['http'] },
      { name: 'metadata-like', index: 12, daemons: ['sshd'] },
    ]);
  });
  afterAll(() => lab?.teardown());

  it('refuses each address outside it and never sends it a packet', async () => {
    lab.assertRoutedIntoLab();
    const address = (name: string) => lab.hosts.get(name)!.address;
    const emitted: { address: string }[] = [];
    const logs: { message: string; details?: Record<string, unknown> }[] = [];
    await discoveryExecutor()(
      {
        targets: [{ range: `${address('allowed')}-${address('metadata-like')}` }],
        exclusions: [],
        template: {
          ports: [22, 8080],
          timeoutMs: 1000,
          retries: 0,
          maxInFlight: 16,
          connectionsPerSecond: 100,
          perHostInFlight: 2,
          reverseDns: false,
          useNmap: false,
        },
        policy: { allowed: [`${address('allowed')}/32`], excluded: [], allowLoopback: false },
      },
      {
        signal: new AbortController().signal,
        emit: async (items) => {
          emitted.push(...(items as { address: string }[]));
        },
        progress: () => {},
        log: (message, details) => logs.push({ message, ...(details ? { details } : {}) }),
      },
    );
    const refusedItems = emitted.filter((i) => 'refused' in i);
    expect(emitted.filter((i) => !('refused' in i)).map((h) => h.address)).toEqual([address('allowed')]);
    // Each refusal is among the results too, so that the run names it.
    expect(refusedItems.map((i) => i.address)).toEqual([address('outside'), address('metadata-like')]);
    const refused = logs.filter((l) => l.message === 'address refused').map((l) => l.details);
    expect(refused).toEqual([
      { address: address('outside'), rule: 'NotAllowed' },
      { address: address('metadata-like'), rule: 'NotAllowed' },
    ]);
    expect(lab.packetsReceived('outside')).toEqual({ ip: 0, arp: 0 });
    expect(lab.packetsReceived('metadata-like')).toEqual({ ip: 0, arp: 0 });
    expect(lab.packetsReceived('allowed').ip).toBeGreaterThan(0);
  });

  it('refuses a spec it cannot read before anything is sent', async () => {
    const context = {
      signal: new AbortController().signal,
      emit: async () => {},
      progress: () => {},
      log: () => {},
    };
    // As the node runs a claimed spec: checked against the contract first.
    const claimed = async (raw: unknown) => discoveryExecutor()(readSpec('Discovery', raw), context);
    await expect(claimed({ targets: 'everything' })).rejects.toThrow(
      /not a Discovery spec this node can run: \/exclusions is required; .*\/targets must be array/,
    );
    await expect(
      claimed({
        targets: [{ range: lab.subnet }],
        exclusions: [],
        policy: { allowed: [lab.subnet], excluded: [], allowLoopback: false },
        template: {
          ports: [],
          timeoutMs: 1,
          retries: 0,
          maxInFlight: 0,
          connectionsPerSecond: 0,
          perHostInFlight: 0,
          reverseDns: false,
          useNmap: false,
        },
      }),
    ).rejects.toThrow(/\/template\/ports .*\/template\/maxInFlight must be >= 1/);
  });
});
