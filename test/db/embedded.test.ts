import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DatabaseLockedError } from '../../src/db/lock.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe('embedded database off the event loop [embedded]', () => {
  let tdb: TestDatabase;
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    t = await buildTestApp(tdb.database);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers a request that needs no database while a long statement runs', async () => {
    let sleeping = true;
    const slow = sql`select pg_sleep(2)`.execute(tdb.database.db).finally(() => {
      sleeping = false;
    });
    // Let the statement reach the database thread first.
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`${base}/api/latest/status`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { Service: string }).Service).toBe('Rampart');
    expect(sleeping).toBe(true);
    await slow;
    expect(sleeping).toBe(false);
  });

  it('keeps data in a folder across restarts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-data-'));
    const { openEmbedded } = await import('../../src/db/database.js');
    const first = await openEmbedded(dir, 'test');
    await sql`create table kept (v text)`.execute(first.db);
    await sql`insert into kept values ('still here')`.execute(first.db);
    await first.close();
    const second = await openEmbedded(dir, 'test');
    const rows = await sql<{ v: string }>`select v from kept`.execute(second.db);
    await second.close();
    expect(rows.rows).toEqual([{ v: 'still here' }]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('data folder lock', () => {
  it('refuses a folder held by another live process, naming it and what to do', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-lock-'));
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      fs.writeFileSync(
        path.join(dir, 'rampart.lock'),
        JSON.stringify({ pid: holder.pid, command: 'serve', startedAt: '2026-11-21T10:00:00.000Z' }),
      );
      expect(() => acquireDataDirLock(dir, 'migrate')).toThrow(DatabaseLockedError);
      expect(() => acquireDataDirLock(dir, 'migrate')).toThrow(
        /pid \d+, "rampart serve".*\n.*Either stop that process/s,
      );
    } finally {
      holder.kill();
    }
  });

  it('takes over a lock left by a process that is gone, and releases it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-lock-'));
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => gone.once('exit', r));
    fs.writeFileSync(
      path.join(dir, 'rampart.lock'),
      JSON.stringify({ pid: gone.pid, command: 'serve', startedAt: 'x' }),
    );
    const release = acquireDataDirLock(dir, 'migrate');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'rampart.lock'), 'utf8')).pid).toBe(process.pid);
    release();
    expect(fs.existsSync(path.join(dir, 'rampart.lock'))).toBe(false);
  });

  it('treats an unreadable lock file as stale', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-lock-'));
    const lockPath = path.join(dir, 'rampart.lock');
    fs.writeFileSync(lockPath, '{garbage');
    const release = acquireDataDirLock(dir, 'migrate');
    // The unreadable file was replaced by this process's own lock, not taken as another holder's.
    const holder = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as { pid: number; command: string };
    expect(holder).toMatchObject({ pid: process.pid, command: 'migrate' });
    release();
    expect(fs.existsSync(lockPath)).toBe(false);
  });
});
