// A discovery run survives the death of the process running it: a scan node killed
// mid-run, and a server killed mid-run while its local node scans, each end with the run
// completed once by the restarted process, every live host reported once. In a lab of network
// namespaces the test builds (test/lab); traffic goes only there, which the test first proves.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../helpers/app.js';
import { runCliCapturing } from '../helpers/cli.js';
import {
  createPostgresDatabase,
  DB_KINDS,
  newTestDatabase,
  type TestDatabase,
} from '../helpers/databases.js';
import { apiCall } from '../helpers/scan-nodes.js';
import { createLab, type Lab, labAvailable } from '../lab/lab.js';

/** Slow on purpose (10 connects a second), so that a kill lands mid-run; no names (no lab DNS here). */
const SLOW = {
  Ports: [22, 80],
  TimeoutMs: 500,
  Retries: 0,
  MaxInFlight: 4,
  ConnectionsPerSecond: 10,
  PerHostInFlight: 2,
  ReverseDns: false,
  UseNmap: false,
};
const LIVE = ['ssh', 'web', 'quiet'];

/** The little of the API's answers these tests read. */
interface Answer {
  Id: string;
  LastRun: { State: string; Attempt: number; Progress: { Done: number } };
  Items: { IpAddress: string }[];
  Counts: Record<string, number>;
}

/** Runs `rampart <args>` as its own process, with only the given database settings. */
function rampart(args: string[], env: Record<string, string>): ChildProcess {
  const { DATABASE_URL: _own, ...inherited } = process.env;
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { ...inherited, RAMPART_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe.runIf(labAvailable())('[lab] discovery runs outlive a killed process', () => {
  let lab: Lab;
  const address = (name: string) => lab.hosts.get(name)!.address;
  /** .2–.40: 39 addresses, 78 connects, about 8 s at 10 a second. */
  const range = () => `${lab.subnet.replace(/\.0\/24$/, '')}.2-${lab.subnet.replace(/\.0\/24$/, '')}.40`;

  beforeAll(async () => {
    lab = await createLab([
      { name: 'ssh', index: 10, daemons: ['sshd'] },
      { name: 'web', index: 20, daemons: ['nginx'] },
      { name: 'quiet', index: 30 },
    ]);
  });
  afterAll(() => lab?.teardown());

  describe.each(DB_KINDS)('a scan node killed mid-run [%s]', (kind) => {
    let tdb: TestDatabase;
    let t: TestApp;
    let admin: Credentials;
    let url: string;
    let dir: string;
    let node: ChildProcess | undefined;

    beforeAll(async () => {
      tdb = await newTestDatabase(kind);
      t = await buildTestApp(tdb.database, { background: true });
      admin = t.admin;
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-node-kill-'));
    });
    afterAll(async () => {
      await kill(node);
      await t?.close();
      await tdb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('is queued again when the node falls silent and completed once by the restarted node', {
      timeout: 180_000,
    }, async () => {
      lab.assertRoutedIntoLab();
      const call = (method: 'GET' | 'POST', p: string, body?: unknown) =>
        apiCall(t, method, p, { who: admin, body });
      await call('POST', '/allowedtargets', { Kind: 'Allowed', Target: lab.subnet });
      const template = (await call('POST', '/scantemplates', { Name: 'Slow', Settings: SLOW })).json();
      const scan = (
        await call('POST', '/discoveryscans', {
          Name: 'Kill the node',
          ScanTargets: [{ Range: range() }],
          TemplateId: template.Id,
        })
      ).json();
      const token = (await call('POST', '/scannodes/enrolments', {})).json().Token;
      const state = path.join(dir, 'node.json');
      node = rampart(
        ['scan-node', '--server', url, '--token', token, '--state', state, '--name', 'lab node'],
        {},
      );
      const run = (await call('POST', `/discoveryscans/${scan.Id}/runs`)).json();
      const progress = async () => (await call('GET', `/discoveryscans/${scan.Id}`)).json().LastRun;
      await expect.poll(async () => (await progress()).Progress.Done, { timeout: 60_000 }).toBeGreaterThan(3);
      expect((await progress()).Progress.Done).toBeLessThan(39);
      await kill(node);

      // The node is silent: after 60 s (on the server's clock) its run is queued again.
      t.clock.now = new Date(t.clock.now.getTime() + 61_000);
      expect(await t.services.scanRuns.requeueSilent()).toBe(1);
      expect((await progress()).State).toBe('Queued');
      // The restarted node enrolled before: its state file holds its key (the token was used once).
      node = rampart(['scan-node', '--server', url, '--state', state], {});
      await expect.poll(async () => (await progress()).State, { timeout: 90_000 }).toBe('Completed');
      const ended = await t.services.scanRuns.get(
        { organizationId: t.org.id, actor: { type: 'system', id: null } },
        run.Id,
      );
      expect(ended.attempt).toBe(2);
      expect(ended.history.map((h) => h.state)).toEqual([
        'Queued',
        'Running',
        'Queued',
        'Running',
        'Completed',
      ]);
      const report = (await call('GET', `/discoveryscans/${scan.Id}/reports/latest/hosts`)).json();
      expect(report.Items.map((h: { IpAddress: string }) => h.IpAddress).sort()).toEqual(
        LIVE.map(address).sort(),
      );
      expect(report.Counts).toMatchObject({ New: 3, Gone: 0 });
    });
  });

  describe.each(DB_KINDS)('a server killed while its local node scans [%s]', (kind) => {
    let dir: string;
    let env: Record<string, string>;
    let server: ChildProcess | undefined;
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-server-kill-'));
      env = {
        RAMPART_DATA_DIR: dir,
        RAMPART_IMPORT_DIR: dir,
        RAMPART_PORT: '0',
        RAMPART_LOCAL_SCAN_NODE: 'true',
      };
      if (kind === 'postgres') {
        const db = await createPostgresDatabase();
        env.DATABASE_URL = db.url;
        drop = db.drop;
      }
    });
    afterAll(async () => {
      await kill(server);
      await drop?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** `rampart serve --json`, until it prints its line. */
    const serve = async (): Promise<string> => {
      server = rampart(['serve', '--json'], env);
      let out = '';
      let err = '';
      server.stderr?.on('data', (d) => {
        err += d;
      });
      return new Promise((resolve, reject) => {
        server!.stdout?.on('data', (d) => {
          out += d;
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (line) resolve(JSON.parse(line).Url);
        });
        server!.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
    };

    it('is taken up by the restarted server and completed once', { timeout: 240_000 }, async () => {
      lab.assertRoutedIntoLab();
      const run = async (...args: string[]) => {
        const r = await runCliCapturing(env, args);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout;
      };
      await run('migrate');
      await run('user', 'create', '--email', 'lab@example.com', '--role', 'Admin');
      const key = JSON.parse(
        await run('apikey', 'create', '--user', 'lab@example.com', '--name', 'lab', '--json'),
      );
      const who = { accessKey: key.AccessKey, secretKey: key.SecretKey };
      let base = await serve();
      const call = async (method: string, p: string, body?: unknown) => {
        const res = await fetch(`${base}/api/latest${p}`, {
          method,
          headers: {
            ...authHeaders(who),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return {
          status: res.status,
          body: (await res.json()) as Answer,
        };
      };
      await call('POST', '/allowedtargets', { Kind: 'Allowed', Target: lab.subnet });
      const template = (await call('POST', '/scantemplates', { Name: 'Slow', Settings: SLOW })).body;
      const scan = (
        await call('POST', '/discoveryscans', {
          Name: 'Kill the server',
          ScanTargets: [{ Range: range() }],
          TemplateId: template.Id,
        })
      ).body;
      expect((await call('POST', `/discoveryscans/${scan.Id}/runs`)).status).toBe(201);
      const lastRun = async () => (await call('GET', `/discoveryscans/${scan.Id}`)).body.LastRun;
      await expect.poll(async () => (await lastRun()).Progress.Done, { timeout: 60_000 }).toBeGreaterThan(3);
      expect((await lastRun()).Progress.Done).toBeLessThan(39);
      await kill(server);

      // Embedded: the restarted server's local node takes the run up at once. PostgreSQL: once
      // the dead node's lease has run out (60 s), as any silent node's run.
      base = await serve();
      await expect
        .poll(async () => (await lastRun()).State, { timeout: 180_000, interval: 1000 })
        .toBe('Completed');
      expect((await lastRun()).Attempt).toBe(2);
      const report = (await call('GET', `/discoveryscans/${scan.Id}/reports/latest/hosts`)).body;
      expect(report.Items.map((h: { IpAddress: string }) => h.IpAddress).sort()).toEqual(
        LIVE.map(address).sort(),
      );
      expect(report.Counts).toMatchObject({ New: 3, Gone: 0 });
    });
  });
});
