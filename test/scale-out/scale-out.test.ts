// Three `rampart serve` instances on one PostgreSQL and one Redis, and two `rampart scan-node`
// processes, driven as a load balancer would spread a team's work over them: a web session
// signed in on one instance is honoured and ended on the others, one API key's throttle budget is
// counted exactly across the three, imports submitted to all three complete once each although
// the instance running them is SIGKILLed inside their merge, and a discovery run whose node is
// SIGKILLed mid-run is completed by the other node. Scans go only into a lab of network
// namespaces the test builds (test/lab), which it first proves; everything else is on loopback.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, type Credentials } from '../helpers/app.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase } from '../helpers/databases.js';
import { createLab, type Lab, labAvailable } from '../lab/lab.js';
import { estate, nessusReport } from '../modules/imports/nessus-report.js';

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;

/** Each import adds HOSTS assets and HOSTS × ITEMS findings of its own. */
const HOSTS = 10;
const ITEMS = 50;
const IMPORTS = 3;
/** The budget of GET /assets for one API key in RAMPART_THROTTLE_ROUTES, and the burst against it. */
const ASSETS_LIMIT = 50;
const BURST = 90;

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

interface Instance {
  child: ChildProcess;
  url: string;
}

/** `rampart <args>` as its own process with this test's settings only (never the run's DATABASE_URL). */
function rampart(args: string[], env: Record<string, string>): ChildProcess {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `rampart serve --json` on a free port; resolves once it listens. */
async function serve(env: Record<string, string>): Promise<Instance> {
  const child = rampart(['serve', '--json'], { ...env, RAMPART_PORT: '0' });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{"Url"'));
      if (line) resolve(JSON.parse(line).Url);
    });
    child.once('exit', (code) => reject(new Error(`serve ended before it listened (${code}): ${stderr}`)));
  });
  return { child, url };
}

const alive = (child: ChildProcess | undefined) =>
  child && child.exitCode === null && child.signalCode === null;

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!alive(child)) return;
  const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
  child!.kill('SIGKILL');
  await exited;
}

describe.runIf(DATABASE_URL && REDIS_URL && labAvailable())(
  '[lab] three instances and two scan nodes on one PostgreSQL and one Redis',
  () => {
    let lab: Lab;
    let drop = async () => {};
    let db: pg.Client;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-scale-out-'));
    const env: Record<string, string> = {};
    const instances: Instance[] = [];
    const nodes: ChildProcess[] = [];
    let who: Pick<Credentials, 'accessKey' | 'secretKey'>;
    const address = (name: string) => lab.hosts.get(name)!.address;

    /** An API call with the key to instance `i`. */
    const call = async (i: number, method: string, p: string, body?: unknown) => {
      const res = await fetch(`${instances[i]!.url}/api/latest${p}`, {
        method,
        headers: {
          ...authHeaders(who),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    };
    /** The instances still running, by index. */
    const living = () => instances.flatMap((s, i) => (alive(s.child) ? [i] : []));

    beforeAll(async () => {
      lab = await createLab([
        { name: 'ssh', index: 10, daemons: ['sshd'] },
        { name: 'web', index: 20, daemons: ['nginx'] },
        { name: 'quiet', index: 30 },
      ]);
      const pgdb = await createPostgresDatabase();
      drop = pgdb.drop;
      // Passable by others, as a user's folders are: as root, the server runs as its own account.
      fs.chmodSync(dir, 0o755);
      Object.assign(env, {
        DATABASE_URL: pgdb.url,
        REDIS_URL: REDIS_URL!,
        // This run's keys only: other runs share the Redis.
        RAMPART_REDIS_PREFIX: `rampart-scale-out-${process.pid}-${Date.now()}:`,
        // One spool directory for all: the volume a deployment shares between its instances.
        RAMPART_IMPORT_DIR: path.join(dir, 'uploads'),
        RAMPART_LOG_LEVEL: 'silent',
        RAMPART_INTEL_KB: 'off',
        RAMPART_INTEL_SYNC: 'off',
        RAMPART_LOCAL_SCAN_NODE: 'false',
        RAMPART_THROTTLE_ROUTES: JSON.stringify({ listAssets: { Limit: ASSETS_LIMIT, Window: 600 } }),
      });
      const cli = async (...args: string[]) => {
        const r = await runCliCapturing(env, args);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout;
      };
      await cli('migrate');
      await cli(
        'user',
        'create',
        '--email',
        'lead@example.com',
        '--role',
        'Admin',
        '--password',
        'scale-out-pass-1',
      );
      const key = JSON.parse(
        await cli('apikey', 'create', '--user', 'lead@example.com', '--name', 'ci', '--json'),
      );
      who = { accessKey: key.AccessKey, secretKey: key.SecretKey };
      // Started one after another: the first start creates what every instance then shares.
      for (let i = 0; i < 3; i++) instances.push(await serve(env));
      db = new pg.Client({ connectionString: pgdb.url });
      await db.connect();
    }, 300_000);

    afterAll(async () => {
      for (const n of nodes) await kill(n);
      for (const s of instances) await kill(s.child);
      await db?.end();
      await drop();
      await lab?.teardown();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('honours a session signed in on one instance on the others, and ends it on all at once', async () => {
      const signIn = await fetch(`${instances[0]!.url}/api/latest/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Email: 'lead@example.com', Password: 'scale-out-pass-1' }),
      });
      expect(signIn.status).toBe(200);
      const csrf = (await signIn.json()).CsrfToken as string;
      const cookie = signIn.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const asSession = (i: number, method: string, p: string, body?: unknown, withCsrf = true) =>
        fetch(`${instances[i]!.url}/api/latest${p}`, {
          method,
          headers: {
            cookie,
            ...(withCsrf ? { 'x-csrf-token': csrf } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });

      for (const i of [1, 2]) {
        const res = await asSession(i, 'GET', '/session');
        expect(res.status).toBe(200);
        expect((await res.json()).User.Email).toBe('lead@example.com');
      }
      // A write through the third instance: refused without the session's CSRF token, done with it.
      const target = { Kind: 'Allowed', Target: lab.subnet, Description: 'Scale-out lab' };
      expect((await asSession(2, 'POST', '/allowedtargets', target, false)).status).toBe(403);
      expect((await asSession(2, 'POST', '/allowedtargets', target)).status).toBe(201);
      // Signed out on the second: no instance honours the session any more.
      expect((await asSession(1, 'DELETE', '/session')).status).toBe(204);
      for (const i of [0, 1, 2]) expect((await asSession(i, 'GET', '/session')).status).toBe(401);
    });

    it("counts one API key's throttle budget exactly across the three instances", async () => {
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, n) => call(n % 3, 'GET', '/assets?PageSize=1')),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(ASSETS_LIMIT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(BURST - ASSETS_LIMIT);
      // The count is shared, not each instance's own: after the burst every instance refuses.
      for (const i of [0, 1, 2]) expect((await call(i, 'GET', '/assets?PageSize=1')).status).toBe(429);
      const refused = answers.find((a) => a.status === 429)!;
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Other routes keep the global budget.
      expect((await call(0, 'GET', '/allowedtargets')).status).toBe(200);
    });

    it('completes each import once although the instance running them is killed inside their merge', {
      timeout: 240_000,
    }, async () => {
      // The merges wait at the findings table, held here, so that the kill lands inside them.
      const holder = new pg.Client({ connectionString: env.DATABASE_URL });
      await holder.connect();
      await holder.query('begin');
      await holder.query('lock table findings in share row exclusive mode');
      let victim = -1;
      const ids: string[] = [];
      try {
        for (let b = 0; b < IMPORTS; b++) {
          const report = nessusReport(
            estate(HOSTS, ITEMS).map((h, i) => ({
              ...h,
              ip: `10.${120 + b}.0.${i + 1}`,
              fqdn: `host-${i}.batch-${b}.example`,
            })),
          );
          const res = await fetch(`${instances[b % 3]!.url}/api/latest/imports?FileName=batch-${b}.nessus`, {
            method: 'POST',
            headers: { ...authHeaders(who), 'content-type': 'application/xml' },
            body: report,
          });
          expect(res.status).toBe(202);
          ids.push((await res.json()).Id);
        }
        // Every import's job is claimed and its merge waits at the lock.
        const running = async () =>
          (
            await db.query<{ locked_by: string }>(
              `select locked_by from jobs where kind = 'import' and state = 'Running' and payload->>'importId' = any($1)`,
              [ids],
            )
          ).rows;
        await expect.poll(async () => (await running()).length, { timeout: 60_000 }).toBe(IMPORTS);
        await expect
          .poll(
            async () =>
              Number(
                (
                  await db.query(
                    `select count(*) from pg_locks l join pg_stat_activity a on a.pid = l.pid
                      where not l.granted and l.relation = 'findings'::regclass`,
                  )
                ).rows[0].count,
              ),
            { timeout: 60_000 },
          )
          .toBeGreaterThan(0);
        // The instance running the most of them is killed.
        const byPid = new Map<number, number>();
        for (const r of await running()) {
          const pid = Number(/^worker-(\d+)-/.exec(r.locked_by)?.[1]);
          byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
        }
        const pid = [...byPid.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        victim = instances.findIndex((s) => s.child.pid === pid);
        expect(victim, `no instance runs as pid ${pid}`).toBeGreaterThanOrEqual(0);
        await kill(instances[victim]!.child);
      } finally {
        await holder.query('rollback');
        await holder.end();
      }

      // The survivors finish theirs at once and the victim's once its leases run out (60 s).
      const imports = async () => {
        const rows = await Promise.all(
          ids.map(async (id) => (await call(living()[0]!, 'GET', `/imports/${id}`)).body),
        );
        return rows as { Id: string; State: string; Counts: Record<string, number> }[];
      };
      await expect
        .poll(async () => (await imports()).map((i) => i.State), { timeout: 180_000, interval: 2000 })
        .toEqual(ids.map(() => 'Completed'));
      for (const i of await imports())
        expect(i.Counts).toMatchObject({ New: HOSTS * ITEMS, AssetsCreated: HOSTS, Findings: HOSTS * ITEMS });
      const count = async (q: string) => Number((await db.query(q)).rows[0].count);
      expect(await count('select count(*) from findings')).toBe(IMPORTS * HOSTS * ITEMS);
      expect(await count('select count(*) from assets')).toBe(IMPORTS * HOSTS);
      // One import.completed event each: nothing done twice.
      const completed = await db.query<{ subject: string; n: string }>(
        `select subject, count(*) as n from event_outbox where type = 'import.completed' group by subject`,
      );
      expect(completed.rows.map((r) => [r.subject, Number(r.n)]).sort()).toEqual(
        ids.map((id) => [`imports/${id}`, 1]).sort(),
      );
      const jobs = await db.query<{ attempts: number; state: string }>(
        `select attempts, state from jobs where kind = 'import' and payload->>'importId' = any($1)`,
        [ids],
      );
      expect(jobs.rows.every((j) => j.state === 'Completed')).toBe(true);
      // The killed instance's imports ran a second time elsewhere.
      expect(jobs.rows.some((j) => j.attempts === 2)).toBe(true);
      expect(await count('select count(*) from import_findings')).toBe(0);
    });

    it('completes a discovery run on the other node when its node is killed mid-run', {
      timeout: 300_000,
    }, async () => {
      lab.assertRoutedIntoLab();
      const [first, second] = living();
      expect(second, 'two instances live on').toBeDefined();
      const states: string[] = [];
      for (const [n, i] of [first!, second!].entries()) {
        const token = (await call(i, 'POST', '/scannodes/enrolments', {})).body.Token;
        const state = path.join(dir, `node-${n}.json`);
        states.push(state);
        nodes.push(
          rampart(
            [
              'scan-node',
              '--server',
              instances[i]!.url,
              '--token',
              token,
              '--state',
              state,
              '--name',
              `node ${n}`,
            ],
            {
              RAMPART_LOG_LEVEL: 'silent',
            },
          ),
        );
      }
      // Each node writes its id to its state file once enrolled.
      const nodeId = (file: string): string | null => {
        try {
          return JSON.parse(fs.readFileSync(file, 'utf8')).NodeId ?? null;
        } catch {
          return null;
        }
      };
      await expect.poll(() => states.every((s) => nodeId(s) !== null), { timeout: 60_000 }).toBe(true);
      const nodeIds = states.map((s) => nodeId(s)!);

      const range = `${lab.subnet.replace(/\.0\/24$/, '')}.2-${lab.subnet.replace(/\.0\/24$/, '')}.40`;
      const template = (await call(first!, 'POST', '/scantemplates', { Name: 'Slow', Settings: SLOW })).body;
      const scan = (
        await call(second!, 'POST', '/discoveryscans', {
          Name: 'Across nodes',
          ScanTargets: [{ Range: range }],
          TemplateId: template.Id,
        })
      ).body;
      const run = await call(first!, 'POST', `/discoveryscans/${scan.Id}/runs`);
      expect(run.status, JSON.stringify([template, scan, run.body])).toBe(201);
      const lastRun = async () => (await call(living()[0]!, 'GET', `/scanruns/${run.body.Id}`)).body;
      await expect.poll(async () => (await lastRun()).Progress.Done, { timeout: 60_000 }).toBeGreaterThan(3);
      const runningOn = (await lastRun()).ClaimedBy as string;
      expect((await lastRun()).Progress.Done).toBeLessThan(39);
      const killed = nodeIds.indexOf(runningOn);
      expect(killed, `the run is on an enrolled node (${runningOn})`).toBeGreaterThanOrEqual(0);
      await kill(nodes[killed]);

      // Silent for 60 s, the run is queued again by an instance and taken by the other node.
      await expect
        .poll(async () => (await lastRun()).State, { timeout: 240_000, interval: 2000 })
        .toBe('Completed');
      const ended = await lastRun();
      expect(ended.Attempt).toBe(2);
      expect(ended.ClaimedBy ?? ended.History.at(-1).NodeId).not.toBe(runningOn);
      const runningNodes = ended.History.filter((h: { State: string }) => h.State === 'Running').map(
        (h: { NodeId: string }) => h.NodeId,
      );
      expect(runningNodes).toEqual([runningOn, nodeIds[1 - killed]]);
      const report = (await call(living()[0]!, 'GET', `/discoveryscans/${scan.Id}/reports/latest/hosts`))
        .body;
      expect(report.Items.map((h: { IpAddress: string }) => h.IpAddress).sort()).toEqual(
        LIVE.map(address).sort(),
      );
      expect(report.Counts).toMatchObject({ New: 3, Gone: 0 });
    });
  },
);
