import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliEnv } from '../../src/cli/runtime.js';
import { EXIT, runCli } from '../../src/main.js';
import type { ServiceContext } from '../../src/modules/context.js';
import type { DiscoveredHost, DiscoverySpec, RunExecutor, ScanKind } from '../../src/scanning/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

/** A live host as discovery reports it. */
const host = (address: string): DiscoveredHost => ({
  address,
  hostname: null,
  openPorts: [22],
  closedPorts: [],
  macAddress: null,
  osGuess: null,
});
// A stand-in for the discovery engine (written elsewhere): one host per address of its spec.
const executors = new Map<ScanKind, RunExecutor>([
  [
    'Discovery',
    async (spec, context) => {
      const { addresses } = spec as DiscoverySpec & { addresses: string[] };
      for (const [i, address] of addresses.entries()) {
        await context.emit([host(address)]);
        context.progress({ done: i + 1, total: addresses.length, found: i + 1 });
      }
    },
  ],
]);

describe.each(DB_KINDS)('rampart scan-node [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;
  let url: string;
  let dir: string;
  const hosts: unknown[] = [];

  const cliEnv = (out: { stdout: string; stderr: string }): CliEnv => ({
    env: {},
    clock: t.clock.fn,
    scanExecutors: executors,
    out: {
      stdout: (text) => {
        out.stdout += text;
      },
      stderr: (text) => {
        out.stderr += text;
      },
    },
  });
  /** Runs the command to its end (for arguments it refuses). */
  const refused = async (argv: string[]) => {
    const out = { stdout: '', stderr: '' };
    const code = await runCli(['scan-node', ...argv], cliEnv(out));
    return { code, ...out };
  };
  /** Starts a node; resolves once it runs, with its stop and its exit code to come. */
  const start = async (argv: string[]) => {
    const out = { stdout: '', stderr: '' };
    let stop: (() => Promise<void>) | undefined;
    const exit = runCli(['scan-node', ...argv, '--json'], cliEnv(out), (s) => {
      stop = s;
    });
    await expect.poll(() => stop !== undefined || out.stderr.includes('error')).toBe(true);
    if (!stop) throw new Error(out.stderr);
    return { stop, exit, out };
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true, env: { RAMPART_LOCAL_SCAN_NODE: 'false' } });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    t.services.scanRuns.onBatch('Discovery', async (_run, items) => {
      hosts.push(...items);
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-scan-node-'));
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('enrols once, keeps its key in a 0600 state file, claims a run queued through the service and completes it', async () => {
    const { token } = await t.services.scanNodes.createEnrolment(ctx);
    const stateFile = path.join(dir, 'node', 'state.json');
    const node = await start([
      '--server',
      url,
      '--token',
      token,
      '--state',
      stateFile,
      '--name',
      'cli node',
      '--capacity',
      '2',
    ]);
    const started = JSON.parse(node.out.stdout);
    expect(started).toMatchObject({ ServerUrl: url, StateFile: stateFile, Kinds: ['Discovery'] });

    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    expect(state).toEqual({
      ServerUrl: url,
      NodeId: started.NodeId,
      NodeKey: expect.stringMatching(/^rsn_/),
    });
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(await t.services.scanNodes.get(ctx, state.NodeId)).toMatchObject({
      name: 'cli node',
      capacity: 2,
      kinds: ['Discovery'],
    });

    const run = await t.services.scanRuns.queue(ctx, {
      kind: 'Discovery',
      sourceId: '0193a5c4-7f10-7c3e-9d41-00000000c11a',
      sourceName: 'CLI scan',
      nodeId: state.NodeId,
      // A discovery spec as the contract says (the node checks it), with the stand-in's addresses
      // (no targets: the organisation's policy, checked at the claim, has nothing to refuse).
      spec: {
        targets: [],
        exclusions: [],
        template: {
          ports: [22],
          timeoutMs: 100,
          retries: 0,
          maxInFlight: 1,
          connectionsPerSecond: 1,
          perHostInFlight: 1,
          reverseDns: false,
          useNmap: false,
        },
        policy: { allowed: [], excluded: [], allowLoopback: false },
        addresses: ['127.0.0.1', '127.0.0.2'],
      },
    });
    await expect.poll(async () => (await t.services.scanRuns.get(ctx, run.id)).state).toBe('Completed');
    expect(await t.services.scanRuns.get(ctx, run.id)).toMatchObject({
      claimedBy: state.NodeId,
      progress: { done: 2, total: 2, found: 2 },
    });
    expect(hosts).toEqual([host('127.0.0.1'), host('127.0.0.2')]);
    await node.stop();
    expect(await node.exit).toBe(EXIT.ok);

    // Started again, it uses its state file: no token, no second node.
    const again = await start(['--server', `${url}/`, '--state', stateFile]);
    expect(JSON.parse(again.out.stdout).NodeId).toBe(state.NodeId);
    await again.stop();
    expect(await again.exit).toBe(EXIT.ok);
    expect((await t.services.scanNodes.list(ctx)).filter((n) => n.name === 'cli node')).toHaveLength(1);

    // A used token is refused by the server, clearly.
    const reused = await refused([
      '--server',
      url,
      '--token',
      token,
      '--state',
      path.join(dir, 'other.json'),
    ]);
    expect(reused.code).toBe(EXIT.failed);
    expect(reused.stderr).toContain('Enrolment refused (401)');
    expect(fs.existsSync(path.join(dir, 'other.json'))).toBe(false);
  });

  it('refuses bad arguments with clear errors', async () => {
    const junk = path.join(dir, 'junk.json');
    fs.writeFileSync(junk, 'not json');
    const cases: [string[], string][] = [
      [['--token', 'rse_x'], '--server is required'],
      [['--server', 'ftp://example.com', '--token', 'rse_x'], '--server must be an http(s) URL'],
      [['--server', 'not a url'], '--server must be an http(s) URL'],
      [['--server', url, '--capacity', '0'], '--capacity must be a whole number from 1 to 64'],
      [['--server', url, '--capacity', 'two'], '--capacity must be a whole number from 1 to 64'],
      [['--server', url, '--name', ''], '--name must have 1 to 100 characters'],
      [['--server', url, '--state', path.join(dir, 'none.json')], '--token is required to enrol'],
      [['--server', url, '--state', junk], 'is not one this command wrote'],
    ];
    for (const [argv, message] of cases) {
      const r = await refused(argv);
      expect(r.code, argv.join(' ')).toBe(EXIT.failed);
      expect(r.stderr, argv.join(' ')).toContain(message);
    }
    const other = path.join(dir, 'elsewhere.json');
    fs.writeFileSync(other, JSON.stringify({ ServerUrl: 'http://127.0.0.1:1', NodeId: 'x', NodeKey: 'y' }));
    const r = await refused(['--server', url, '--state', other]);
    expect(r.stderr).toContain('belongs to the node enrolled at http://127.0.0.1:1');
  });
});
