import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { LocalInvalidationBus } from '../../src/lib/invalidation-bus.js';
import { EXIT, runCli } from '../../src/main.js';
import { buildServices } from '../../src/services.js';
import { startImportProcess } from '../helpers/cli.js';
import { createPostgresDatabase, DB_KINDS, type DbKind } from '../helpers/databases.js';
import { estate, nessusReport } from '../modules/imports/nessus-report.js';

/**
 * A SIGKILL at any moment of an import leaves the data as it was before the import or as it is
 * after it, never in between. test/cli/import.test.ts kills one import once, early; here imports
 * are killed at moments spread over a whole run (a third in, two thirds in, near the end) and, on
 * PostgreSQL, deterministically inside the merge transaction, held at the findings table after
 * its first writes. A spread kill may land before or after the commit (the machine decides);
 * either is accepted, anything in between fails.
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

interface State {
  findings: number;
  assets: number;
  /** Staging rows left, by import. */
  staged: Record<string, number>;
  imports: { id: string; state: string; error: string | null; counts: Record<string, number> }[];
}

/** What the database holds, read the way a restarted server does (interrupted imports ended first). */
async function inspect(env: Record<string, string>): Promise<State> {
  const config = loadConfig(env);
  const database = await openDatabase(config, { command: 'test' });
  try {
    const services = buildServices(database, () => new Date(), new LocalInvalidationBus(), config);
    await services.imports.failInterrupted(0);
    const count = async (table: 'findings' | 'assets') =>
      Number(
        (
          await database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const staged: Record<string, number> = {};
    for (const table of ['import_findings', 'import_assets'] as const) {
      const rows = await database.db
        .selectFrom(table)
        .select((eb) => ['import_id', eb.fn.countAll<string>().as('n')])
        .groupBy('import_id')
        .execute();
      for (const r of rows) staged[r.import_id] = (staged[r.import_id] ?? 0) + Number(r.n);
    }
    const imports = await database.db
      .selectFrom('imports')
      .select(['id', 'state', 'error', 'counts'])
      .execute();
    return {
      findings: await count('findings'),
      assets: await count('assets'),
      staged,
      imports: imports.map((i) => ({
        ...i,
        counts: (typeof i.counts === 'string' ? JSON.parse(i.counts) : i.counts) as Record<string, number>,
      })),
    };
  } finally {
    await database.close();
  }
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

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

  /** The state after a kill is the state before the import or the state after it, nothing else. */
  const expectBeforeOrAfter = (after: State, importsBefore: Set<string>, moment: string) => {
    const killed = after.imports.filter((i) => !importsBefore.has(i.id));
    expect(killed, moment).toHaveLength(1);
    const outcome =
      after.findings === current.findings && after.assets === current.assets
        ? 'before'
        : after.findings === current.findings + FINDINGS && after.assets === current.assets + HOSTS
          ? 'after'
          : 'between';
    expect(outcome, `${moment}: ${after.findings} findings, ${after.assets} assets`).not.toBe('between');
    if (outcome === 'before') {
      expect(killed[0], moment).toMatchObject({ state: 'Failed' });
      expect(killed[0]!.error, moment).toMatch(/interrupted/);
      expect(after.staged[killed[0]!.id] ?? 0, moment).toBe(0);
    } else {
      expect(killed[0], moment).toMatchObject({ state: 'Completed', counts: { New: FINDINGS } });
    }
    current = after;
    return outcome;
  };

  beforeAll(async () => {
    if (kind === 'pglite') env.RAMPART_DATA_DIR = path.join(dir, 'data');
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
    current = await inspect(env);
    expect(current).toMatchObject({ findings: 6, assets: 2, staged: {} });
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the data before or after the import wherever the kill lands in it', async () => {
    // One whole run shows how long an import runs on this machine now, to spread the kills over it.
    const known = new Set(current.imports.map((i) => i.id));
    const whole = await startImportProcess(env, nextReport());
    const began = performance.now();
    await exited(whole);
    const span = performance.now() - began;
    expect(whole.exitCode).toBe(EXIT.ok);
    expect(expectBeforeOrAfter(await inspect(env), known, 'uninterrupted')).toBe('after');

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
      const outcome = expectBeforeOrAfter(await inspect(env), known, moment);
      outcomes.push(`${moment}: ${landed ? outcome : 'ended first'}`);
    }
    // Where each kill lands is the machine's doing; that some landed is not.
    expect(outcomes.filter((o) => !o.endsWith('ended first')).length, outcomes.join('; ')).toBeGreaterThan(0);
  }, 600_000);

  it.runIf(kind === 'postgres')(
    'leaves the data as before when the kill lands inside the merge transaction, after its first writes',
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
      expect(expectBeforeOrAfter(await inspect(env), known, 'inside the merge')).toBe('before');
    },
    300_000,
  );
});
