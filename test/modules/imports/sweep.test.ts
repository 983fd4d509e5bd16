import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportRecord } from '../../../src/importers/types.js';
import { uuidv7 } from '../../../src/lib/uuidv7.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import { IMPORT_JOB } from '../../../src/modules/imports/service.js';
import { SPOOL_GRACE_MS, spoolReport } from '../../../src/modules/imports/upload.js';
import { Problems } from '../../../src/problems/catalogue.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

/**
 * What processes killed in the middle of an import leave behind — rows staged for a merge that
 * will never come, spooled files nobody will read — is removed by the imports' sweep (at start,
 * every minute and after each import), and nothing that work under way still needs.
 */

const STAGING = [
  'import_findings',
  'import_assets',
  'import_services',
  'import_software',
  'import_vulnerabilities',
] as const;

/** A pid that surely runs no process any more: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid!;
}

const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '-');
const spooled = (dir: string, writerHost: string, pid: number | null, suffix = 'upload') => {
  const name = `${pid === null ? '' : `${writerHost}_${pid}_`}${crypto.randomUUID()}.${suffix}`;
  fs.writeFileSync(path.join(dir, name), '<NessusClientData_v2>');
  return name;
};

describe.each(DB_KINDS)('the imports sweep [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-sweep-'));

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_IMPORT_DIR: dir } });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const db = () => tdb.database.db;
  /** Enqueue options of a job that waits (a worker would run it at once). */
  const later = () => ({ organizationId: t.org.id, runAt: new Date(t.clock.now.getTime() + 86_400_000) });

  /** One row in each staging table for `importId`, as a Stager writes them. */
  const stage = async (importId: string) => {
    const base = { organization_id: t.org.id, import_id: importId };
    await db()
      .insertInto('import_assets')
      .values({ ...base, asset_key: 'ip:10.0.0.1', input: JSON.stringify({ ipAddress: '10.0.0.1' }) })
      .execute();
    await db()
      .insertInto('import_services')
      .values({ ...base, asset_key: 'ip:10.0.0.1', port: 22, protocol: 'tcp' })
      .execute();
    await db()
      .insertInto('import_vulnerabilities')
      .values({ ...base, vulnerability_key: 'cve:CVE-2024-6387', input: JSON.stringify({}) })
      .execute();
    await db()
      .insertInto('import_findings')
      .values({
        ...base,
        seq: 1,
        asset_key: 'ip:10.0.0.1',
        vulnerability_key: 'cve:CVE-2024-6387',
        location_key: 'port:22/tcp',
        location_kind: 'Port',
        title: 'x',
        severity: 'High',
      })
      .execute();
    await db()
      .insertInto('import_software')
      .values({
        ...base,
        asset_key: 'ip:10.0.0.1',
        name_key: 'openssh',
        version: '9.2',
        name: 'OpenSSH',
        category: 'Application',
      })
      .execute();
  };

  /** Staged rows left, by import id. */
  const staged = async () => {
    const left: Record<string, number> = {};
    for (const table of STAGING) {
      const rows = await db()
        .selectFrom(table)
        .select((eb) => ['import_id', eb.fn.countAll<string>().as('n')])
        .groupBy('import_id')
        .execute();
      for (const r of rows) left[r.import_id] = (left[r.import_id] ?? 0) + Number(r.n);
    }
    return left;
  };

  const recordImport = async (state: 'Queued' | 'Running' | 'Completed' | 'Failed') => {
    const id = uuidv7();
    await db()
      .insertInto('imports')
      .values({
        id,
        organization_id: t.org.id,
        file_name: 'killed.nessus',
        file_sha256: 'a'.repeat(64),
        file_size: 1,
        format: 'nessus',
        state,
        actor_type: 'system',
        created_at: t.clock.fn(),
        heartbeat_at: t.clock.fn(),
        counts: JSON.stringify({}),
        warnings: [],
      })
      .execute();
    return id;
  };

  it('clears the staging of ended imports and of ingests no job will run, and keeps work under way', async () => {
    const completed = await recordImport('Completed');
    const failed = await recordImport('Failed');
    const queued = await recordImport('Queued');
    await t.services.jobs.enqueueUnchecked(IMPORT_JOB, { importId: queued, path: '/nowhere' }, later());
    // A scan run's ingest stages before its Import exists (recorded with its merge).
    const orphanRun = uuidv7();
    const runningRun = uuidv7();
    await t.services.jobs.enqueueUnchecked('system-scan-ingest', { runId: runningRun }, later());
    for (const id of [completed, failed, queued, orphanRun, runningRun]) await stage(id);
    expect(Object.keys(await staged())).toHaveLength(5);

    const cleared = await t.services.imports.sweepStaging();

    expect(cleared).toBe(3);
    expect(await staged()).toEqual({ [queued]: 5, [runningRun]: 5 });
    // Idempotent.
    expect(await t.services.imports.sweepStaging()).toBe(0);
  });

  it('keeps the staging of an ingest under way in this process, which no job names and no Import records yet', async () => {
    // A scan's results ingested directly (not by a job): the Import is recorded only with the
    // merge, so while the records stream nothing but this process knows the staging is wanted.
    const ctx: ServiceContext = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const importId = uuidv7();
    let release = () => {};
    const paused = new Promise<void>((resolve) => {
      release = resolve;
    });
    let streamed = () => {};
    const midway = new Promise<void>((resolve) => {
      streamed = resolve;
    });
    async function* records(): AsyncGenerator<ImportRecord> {
      for (let i = 0; i < 450; i++)
        yield {
          type: 'finding',
          asset: { kind: 'Host', ipAddresses: ['10.9.0.1'] },
          vulnerability: { ruleId: `sweep-${i}`, title: `Sweep ${i}` },
          location: { kind: 'Port', port: 1000 + i, protocol: 'tcp' },
          severity: 'Low',
        };
      streamed();
      await paused;
    }
    const input = {
      importId,
      source: 'sweep-test',
      format: 'sweep-test',
      scopeName: 'sweep-test',
      displayName: 'sweep test',
      content: { sha256: '0'.repeat(64), size: 1 },
    };
    const ingest = t.services.imports.ingestRecords(ctx, { ...input, records: records() });
    try {
      await midway;
      for (let i = 0; i < 200 && !(await staged())[importId]; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect((await staged())[importId]).toBeGreaterThan(0);

      await t.services.imports.sweepStaging();

      expect((await staged())[importId]).toBeGreaterThan(0);
      // The same ingest again while it runs would clear what it staged: refused.
      await expect(t.services.imports.ingestRecords(ctx, { ...input, records: [] })).rejects.toMatchObject({
        problem: Problems.Conflict,
      });
    } finally {
      release();
    }
    const { counts } = await ingest;
    expect(counts.New).toBe(450);
    expect((await staged())[importId]).toBeUndefined();
  });

  it("removes the files of dead writers and stale foreign ones, keeps a live writer's, a job's and what is not a report", async () => {
    const dead = await deadPid();
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      const deadUpload = spooled(dir, host, dead);
      const deadUnpacked = spooled(dir, host, dead, 'report');
      const liveUpload = spooled(dir, host, live.pid!);
      const ownedByJob = spooled(dir, host, dead);
      await t.services.jobs.enqueueUnchecked(
        IMPORT_JOB,
        { importId: uuidv7(), path: path.join(dir, ownedByJob) },
        later(),
      );
      const foreignFresh = spooled(dir, 'other-host', 4242);
      const foreignStale = spooled(dir, 'other-host', 4243);
      const legacyStale = spooled(dir, host, null);
      const stale = new Date(t.clock.now.getTime() - SPOOL_GRACE_MS - 60_000);
      for (const name of [foreignStale, legacyStale]) fs.utimesSync(path.join(dir, name), stale, stale);
      fs.utimesSync(path.join(dir, foreignFresh), t.clock.now, t.clock.now);
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'not ours');
      // An upload this process is receiving now: held, whatever its age.
      const body = new Readable({ read() {} });
      body.push('<NessusClientData_v2>');
      const receiving = spoolReport(body, dir, 1024 * 1024);
      await expect
        .poll(() => fs.readdirSync(dir).filter((n) => n.includes(`_${process.pid}_`)))
        .toHaveLength(1);
      const mine = fs.readdirSync(dir).find((n) => n.includes(`_${process.pid}_`))!;
      fs.utimesSync(path.join(dir, mine), stale, stale);

      const removed = await t.services.imports.sweepFiles();

      expect(removed.sort()).toEqual([deadUpload, deadUnpacked, foreignStale, legacyStale].sort());
      expect(fs.readdirSync(dir).sort()).toEqual(
        [liveUpload, ownedByJob, foreignFresh, 'notes.txt', mine].sort(),
      );
      body.push(null);
      const report = await receiving;
      await report.remove();
    } finally {
      live.kill();
      for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name));
    }
  });

  it('sweeps everything with one call, as the server does at start and every minute', async () => {
    // The first test's Queued import and running ingest lose their jobs (given up and purged):
    // the import is ended by failAbandoned (its staging with it), the ingest's staging is cleared.
    await db().deleteFrom('jobs').execute();
    const completed = await recordImport('Completed');
    await stage(completed);
    const leftover = spooled(dir, host, await deadPid());
    const swept = await t.services.imports.sweep();
    expect(swept).toEqual({ abandoned: 1, staged: 2, files: 1 });
    expect(fs.existsSync(path.join(dir, leftover))).toBe(false);
    expect((await staged())[completed]).toBeUndefined();
  });
});
