import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from '../../src/main.js';
import { runCliCapturing, startImportProcess } from '../helpers/cli.js';
import { createPostgresDatabase, DB_KINDS, type DbKind } from '../helpers/databases.js';
import { estate, nessusReport } from '../modules/imports/nessus-report.js';
import { type AfterRestart, restartAndInspect } from './import-restart.js';

/**
 * An import is a durable job: a SIGKILL at any moment of it, then a restart, ends with the import
 * Completed once, with the same counts as an import nobody killed, and no file left in
 * RAMPART_IMPORT_DIR. test/cli/import.test.ts kills one import once, early; here imports are
 * killed at moments spread over a whole run (a third in, two thirds in, near the end) and, on
 * PostgreSQL, deterministically inside the merge transaction, held at the findings table after
 * its first writes. A spread kill may land while parsing, while merging or after the commit (the
 * machine decides); each must end the same way.
 */

const HOSTS = 10;
const ITEMS = 100;
const FINDINGS = HOSTS * ITEMS;

/** A report of its own hosts, so that each import adds HOSTS assets and FINDINGS findings. */
function batchReport(batch: number): string {
  return nessusReport(
    estate(HOSTS, ITEMS).map((h, i) => ({
      ...h,
      ip: `10.${100 + batch}.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      fqdn: `host-${i}.batch-${batch}.example`,
    })),
  );
}

type State = AfterRestart;

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** `rampart serve --json` as its own process on a free port; resolves once it listens. */
async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--json'], {
    env: {
      ...inherited,
      ...env,
      RAMPART_PORT: '0',
      RAMPART_LOCAL_SCAN_NODE: 'false',
      RAMPART_INTEL_KB: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

describe.each(DB_KINDS)('an import killed at any moment [%s]', (kind: DbKind) => {
  const env: Record<string, string> = { RAMPART_LOG_LEVEL: 'silent' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-kill-'));
  let drop = async () => {};
  let batch = 0;
  let current: State;

  /** Writes the next batch's report; its import, when whole, adds HOSTS assets and FINDINGS findings. */
  const nextReport = () => {
    batch += 1;
    const file = path.join(dir, `batch-${batch}.nessus`);
    fs.writeFileSync(file, batchReport(batch));
    return file;
  };

  /**
   * After a kill and a restart, the killed import has Completed once, with what an unkilled import
   * of its batch adds: nothing lost, nothing doubled, nothing left staged, no file left.
   */
  const expectCompletedOnce = (after: State, importsBefore: Set<string>, moment: string) => {
    const killed = after.imports.filter((i) => !importsBefore.has(i.id));
    expect(killed, moment).toHaveLength(1);
    expect(killed[0], moment).toMatchObject({
      state: 'Completed',
      error: null,
      counts: { New: FINDINGS, AssetsCreated: HOSTS, Findings: FINDINGS },
    });
    expect(after.findings, moment).toBe(current.findings + FINDINGS);
    expect(after.assets, moment).toBe(current.assets + HOSTS);
    expect(after.staged, moment).toEqual({});
    expect(after.files, moment).toEqual([]);
    current = after;
  };

  beforeAll(async () => {
    // Passable by others, as a user's folders are: as root, the server runs as its own account.
    fs.chmodSync(dir, 0o755);
    if (kind === 'embedded') env.RAMPART_DATA_DIR = path.join(dir, 'data');
    else {
      const pgdb = await createPostgresDatabase();
      env.DATABASE_URL = pgdb.url;
      drop = pgdb.drop;
    }
    env.RAMPART_IMPORT_DIR = path.join(dir, 'uploads');
    const first = path.join(dir, 'first.nessus');
    fs.writeFileSync(first, nessusReport(estate(2, 3)));
    const done = await runCli(['import', first], { env, out: { stdout: () => {}, stderr: () => {} } });
    expect(done).toBe(EXIT.ok);
    current = await restartAndInspect(env);
    expect(current).toMatchObject({ findings: 6, assets: 2, staged: {}, files: [] });
  }, 300_000);
  afterAll(async () => {
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('completes the import once after a restart wherever the kill lands in it', async () => {
    // One whole run shows how long an import runs on this machine now, to spread the kills over it.
    const known = new Set(current.imports.map((i) => i.id));
    const whole = await startImportProcess(env, nextReport());
    const began = performance.now();
    await exited(whole);
    const span = performance.now() - began;
    expect(whole.exitCode).toBe(EXIT.ok);
    expectCompletedOnce(await restartAndInspect(env), known, 'uninterrupted');

    const outcomes: string[] = [];
    for (const [moment, share] of [
      ['a third in', 1 / 3],
      ['two thirds in', 2 / 3],
      ['near the end', 0.9],
    ] as const) {
      const known = new Set(current.imports.map((i) => i.id));
      const child = await startImportProcess(env, nextReport());
      await new Promise((resolve) => setTimeout(resolve, span * share));
      const landed = child.exitCode === null;
      child.kill('SIGKILL');
      await exited(child);
      // An import that ended before its kill was not interrupted: its data is checked all the same.
      const after = await restartAndInspect(env);
      const resumed = after.unfinished.length === 1;
      expectCompletedOnce(after, known, moment);
      outcomes.push(
        `${moment}: ${landed ? (resumed ? 'resumed' : 'committed before the kill') : 'ended first'}`,
      );
    }
    // Where each kill lands is the machine's doing; that some landed is not.
    expect(outcomes.filter((o) => !o.endsWith('ended first')).length, outcomes.join('; ')).toBeGreaterThan(0);
  }, 600_000);

  it('leaves no half-uploaded file behind when the server is killed during an upload', async () => {
    // A key made through the CLI while no server runs (the embedded database admits one process).
    const made = await runCliCapturing(env, [
      'user',
      'create',
      '--email',
      `up-${batch}@example.com`,
      '--role',
      'Analyst',
    ]);
    expect(made.code, made.stderr).toBe(EXIT.ok);
    const key = await runCliCapturing(env, [
      'apikey',
      'create',
      '--user',
      `up-${batch}@example.com`,
      '--name',
      'kill',
      '--json',
    ]);
    expect(key.code, key.stderr).toBe(EXIT.ok);
    const { AccessKey, SecretKey } = JSON.parse(key.stdout);
    const uploads = env.RAMPART_IMPORT_DIR!;
    const known = new Set(current.imports.map((i) => i.id));

    const server = await startServer(env);
    const report = Buffer.from(batchReport(99));
    const request = http.request(`${server.url}/api/latest/imports`, {
      method: 'POST',
      headers: { ApiAccessKey: AccessKey, ApiSecretKey: SecretKey, 'content-type': 'application/xml' },
    });
    request.on('error', () => {});
    // Half the report, then nothing more: the server is receiving it when it dies.
    request.write(report.subarray(0, report.length >> 1));
    await expect
      .poll(() => (fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).length, { timeout: 60_000 })
      .toBe(1);
    server.child.kill('SIGKILL');
    await exited(server.child);
    request.destroy();
    // What the kill left: the half-written upload, which no import refers to.
    expect(fs.readdirSync(uploads)).toHaveLength(1);

    const again = await startServer(env);
    await expect.poll(() => fs.readdirSync(uploads), { timeout: 60_000 }).toEqual([]);
    again.child.kill('SIGTERM');
    await exited(again.child);
    const after = await restartAndInspect(env);
    expect(after.imports.filter((i) => !known.has(i.id))).toEqual([]);
    expect(after).toMatchObject({
      staged: {},
      files: [],
      findings: current.findings,
      assets: current.assets,
    });
  }, 300_000);

  it.runIf(kind === 'postgres')(
    'completes the import once after a restart when the kill lands inside the merge transaction, after its first writes',
    async () => {
      const known = new Set(current.imports.map((i) => i.id));
      const watcher = new pg.Client({ connectionString: env.DATABASE_URL });
      await watcher.connect();
      let child: ChildProcess | undefined;
      try {
        // Hold the findings table so that the merge stops at its first finding, after its first writes.
        await watcher.query('begin');
        await watcher.query('lock table findings in share mode');
        child = await startImportProcess(env, nextReport());
        // The import's connection, once it waits for the findings table.
        const waiting = async () =>
          (
            await watcher.query<{ pid: number }>(
              `select l.pid from pg_locks l join pg_class c on c.oid = l.relation
               where l.database = (select oid from pg_database where datname = current_database())
                 and c.relname = 'findings' and not l.granted`,
            )
          ).rows[0]?.pid;
        let pid: number | undefined;
        // Waits for an event (the merge reaching the lock), not for a time: bounded only so that a
        // broken run ends.
        for (let i = 0; i < 1200 && pid === undefined && child.exitCode === null; i++) {
          pid = await waiting();
          if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(pid, 'the import never reached the findings table').toBeDefined();
        // It waits inside a transaction that has written already (PostgreSQL gives a transaction
        // an id at its first write): the merge, stopped halfway.
        const writing = await watcher.query(
          'select 1 from pg_stat_activity where pid = $1 and backend_xid is not null',
          [pid],
        );
        expect(writing.rowCount, 'the waiting import has written nothing yet').toBe(1);
        child.kill('SIGKILL');
        await exited(child);
        await watcher.query('rollback');
        // The server notices its client is gone when the released statement ends; wait for that.
        for (let i = 0; i < 1200; i++) {
          const alive = await watcher.query('select 1 from pg_stat_activity where pid = $1', [pid]);
          if (alive.rowCount === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await watcher.end();
      }
      const after = await restartAndInspect(env);
      // The merge was rolled back with the dead connection: the job ran it again.
      expect(after.unfinished).toHaveLength(1);
      expectCompletedOnce(after, known, 'inside the merge');
    },
    300_000,
  );
});
