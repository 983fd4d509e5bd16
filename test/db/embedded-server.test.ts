// The embedded database is a PostgreSQL server Rampart runs itself. These tests use it
// as a user's installation would: `rampart serve` processes on a data folder, killed and started
// again, and the faults of its disk and of the server itself.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbedded } from '../../src/db/database.js';
import { linkLibraries } from '../../src/db/embedded/binaries.js';
import { EmbeddedServerError, layout } from '../../src/db/embedded/server.js';
import { DatabaseLockedError } from '../../src/db/lock.js';
import { processRuns } from '../../src/lib/process.js';
import { serveEmbedded, stopServe } from '../helpers/serve-embedded.js';

const quiet = { log: () => {} };
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // As a user's folders are: others may pass through (the server's own account, under root).
  fs.chmodSync(dir, 0o755);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Pids of the postmasters running on `pgdata` (their command line names it). */
function postmastersOf(pgdata: string): number[] {
  const candidates = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return path.basename(argv[0] ?? '') === 'postgres' && argv.includes(pgdata);
      } catch {
        return false;
      }
    })
    .map(Number);
  // A child the postmaster has just forked (the startup process recovering after a kill, a
  // backend) still shows the postmaster's command line until it names itself: leave out every
  // process whose parent is one of them, or a loaded machine kills a child instead.
  const parentOf = (pid: number) => {
    try {
      return Number(
        fs
          .readFileSync(`/proc/${pid}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ')[1],
      );
    } catch {
      return 0;
    }
  };
  return candidates.filter((pid) => !candidates.includes(parentOf(pid)));
}

/** The running server's postmaster, from its postmaster.pid. */
function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(layout(dataDir).pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Whether a process has ended (a zombie nobody reaped counts). */
function processEnded(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * A backend busy with a query that runs for minutes without waiting on anything, so it does not
 * notice its postmaster die: its pid, and the query's promise (which fails when it is ended).
 */
async function busyBackend(dataDir: string): Promise<{ pid: number; query: Promise<unknown> }> {
  const client = await connect(dataDir, socketDirOf(dataDir));
  client.on('error', () => {});
  cleanups.push(() => client.end().catch(() => {}));
  const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid as number;
  // Should the test fail, the query must not outlive it, busy for minutes.
  cleanups.push(() => {
    try {
      if (!processEnded(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  });
  const query = client.query('select count(*) from generate_series(1, 10000000000)');
  query.catch(() => {});
  const watcher = await connect(dataDir, socketDirOf(dataDir));
  await expect
    .poll(
      async () =>
        (await watcher.query('select state from pg_stat_activity where pid = $1', [pid])).rows[0]?.state,
    )
    .toBe('active');
  await watcher.end();
  return { pid, query };
}

const serve = (dataDir: string) => serveEmbedded(dataDir, (fn) => cleanups.push(fn));
const stop = stopServe;

async function status(url: string): Promise<{ Database: string }> {
  const res = await fetch(`${url}/api/latest/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as { Database: string };
}

/** Connects the way Rampart does, with the folder's generated password. */
async function connect(dataDir: string, socketDir: string): Promise<pg.Client> {
  const credentials = JSON.parse(fs.readFileSync(layout(dataDir).credentials, 'utf8'));
  const client = new pg.Client({ host: socketDir, port: 5432, ...credentials });
  await client.connect();
  return client;
}

/** The socket folder a running server announces in its postmaster.pid (5th line). */
function socketDirOf(dataDir: string): string {
  return fs
    .readFileSync(path.join(layout(dataDir).pgdata, 'postmaster.pid'), 'utf8')
    .split('\n')[4] as string;
}

describe('the embedded PostgreSQL server [embedded]', () => {
  it('starts on a new folder with a generated password and no TCP port; a taken port cannot stop it', async () => {
    // Hold a TCP port the way another program would; the server binds none at all.
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const dir = tempDir('rampart-emb-');
    const database = await openEmbedded(path.join(dir, 'data'), 'test', quiet);
    try {
      const settings = await sql<{ name: string; setting: string }>`
        select name, setting from pg_settings
         where name in ('listen_addresses', 'password_encryption', 'server_version_num')`.execute(
        database.db,
      );
      const byName = Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]));
      expect(byName.listen_addresses).toBe('');
      expect(Number(byName.server_version_num)).toBeGreaterThanOrEqual(180000);
      const credentials = JSON.parse(fs.readFileSync(layout(path.join(dir, 'data')).credentials, 'utf8'));
      expect(credentials.password).toMatch(/^[\w-]{32}$/);
      expect(fs.statSync(layout(path.join(dir, 'data')).credentials).mode & 0o077).toBe(0);
      // A wrong password is refused: the socket alone does not let anyone in.
      const wrong = new pg.Client({ ...database.connection, password: 'not-it' });
      await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
      // A pool, not one connection: while a transaction holds a connection, another query is
      // answered (with one connection it would wait for the transaction, which waits for it).
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      let holding = () => {};
      const inTransaction = new Promise<void>((r) => {
        holding = r;
      });
      const transaction = database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        holding();
        await held;
      });
      await inTransaction;
      const outside = await sql<{ n: number }>`select 2 as n`.execute(database.db);
      expect(outside.rows).toEqual([{ n: 2 }]);
      release();
      await transaction;
    } finally {
      await database.close();
    }
  });

  it('a second `rampart serve` on the same folder is refused, naming the first', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const first = serve(data);
    const up = await first.started;
    expect(up, JSON.stringify(up)).toMatchObject({ ok: true });
    const second = serve(data);
    const refused = await second.started;
    expect(refused).toMatchObject({ ok: false, code: 4 });
    expect(refused.ok ? '' : refused.stderr).toMatch(
      /in use by another Rampart process \(pid \d+, \\?"rampart serve/,
    );
    expect(postmastersOf(layout(data).pgdata)).toHaveLength(1);
    expect(await stop(first)).toBe(0);
    // Stopped with Rampart: no server is left on the folder.
    expect(postmastersOf(layout(data).pgdata)).toHaveLength(0);
  });

  it('after a SIGKILL of Rampart the next start stops the server it left and keeps every committed row', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const first = serve(data);
    const up = await first.started;
    if (!up.ok) throw new Error(up.stderr);
    const client = await connect(data, socketDirOf(data));
    await client.query('create table kept (v text)');
    await client.query(`insert into kept values ('committed before the kill')`);
    await client.end();
    const [left] = postmastersOf(layout(data).pgdata);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    // The server outlives the process that started it…
    expect(left && processRuns(left)).toBe(true);

    const second = serve(data);
    const again = await second.started;
    if (!again.ok) throw new Error(again.stderr);
    expect(second.stderr()).toMatch(
      /stopping the embedded database server \(pid \d+\) that a previous Rampart left running/,
    );
    // …and is replaced, never joined by a second one on the same directory.
    const now = postmastersOf(layout(data).pgdata);
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(left);
    expect(processEnded(left as number)).toBe(true);
    expect((await status(again.url)).Database).toBe('embedded');
    const check = await connect(data, socketDirOf(data));
    expect((await check.query('select v from kept')).rows).toEqual([{ v: 'committed before the kill' }]);
    await check.end();
    expect(await stop(second)).toBe(0);
    // Two first starts (a new database, its migrations and knowledge base): slow under load.
  }, 180_000);

  it('`rampart serve` whose server keeps being killed says so and shuts down with status 1', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const s = serve(data);
    const up = await s.started;
    if (!up.ok) throw new Error(up.stderr);
    const pgdata = layout(data).pgdata;
    for (let round = 1; round <= 3; round++) {
      process.kill(postmasterPid(data), 'SIGKILL');
      await expect
        .poll(() => s.stderr(), { timeout: 30_000 })
        .toMatch(new RegExp(`(running again[\\s\\S]*){${round}}`));
    }
    // Between deaths it serves.
    expect((await status(up.url)).Database).toBe('embedded');
    const [pid] = postmastersOf(pgdata);
    const exited = once(s.child, 'exit');
    process.kill(pid as number, 'SIGKILL');
    const [code] = await exited;
    expect(code).toBe(1);
    expect(s.stderr()).toMatch(/for the 4th time in a minute: giving up/);
    expect(s.stderr()).toMatch(/SIGTERM received: shutting down/);
    expect(postmastersOf(pgdata)).toHaveLength(0);
  });

  it('a second SIGTERM while shutting down ends Rampart at once, and its server still stops', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const s = serve(data);
    const up = await s.started;
    if (!up.ok) throw new Error(up.stderr);
    expect(postmastersOf(layout(data).pgdata)).toHaveLength(1);
    // A request whose body never ends keeps the graceful shutdown waiting (up to its timeout).
    const { port } = new URL(up.url);
    const hanging = net.connect(Number(port), '127.0.0.1');
    cleanups.push(() => {
      hanging.destroy();
    });
    await once(hanging, 'connect');
    hanging.write(
      'POST /api/latest/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const exited = once(s.child, 'exit');
    s.child.kill('SIGTERM');
    await expect.poll(() => s.stderr()).toMatch(/SIGTERM received: shutting down/);
    s.child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(1);
    expect(s.stderr()).toMatch(/SIGTERM received again: exiting now/);
    // Told on the way out, the server shuts itself down: no orphan keeps the folder.
    await expect.poll(() => postmastersOf(layout(data).pgdata).length).toBe(0);
  });

  it('a stale postmaster.pid naming another live process does not block the start', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const first = await openEmbedded(data, 'test', quiet);
    await first.close();
    // A crash leaves the pid file; its pid may since belong to another program (here: us).
    const pidFile = path.join(layout(data).pgdata, 'postmaster.pid');
    fs.writeFileSync(pidFile, `${process.pid}\n${layout(data).pgdata}\n0\n5432\n/tmp\n\n0 0\nready\n`);
    const second = await openEmbedded(data, 'test', quiet);
    expect((await sql<{ n: number }>`select 1 as n`.execute(second.db)).rows).toEqual([{ n: 1 }]);
    await second.close();
  });

  it('when the server is killed, Rampart starts it again and loses nothing committed; a server that keeps dying is given up', async () => {
    const dir = tempDir('rampart-emb-');
    const lines: string[] = [];
    const lost: Error[] = [];
    const database = await openEmbedded(path.join(dir, 'data'), 'test', {
      log: (l) => lines.push(l),
      onLost: (e) => lost.push(e),
    });
    cleanups.push(() => database.close());
    const pgdata = layout(path.join(dir, 'data')).pgdata;
    await sql`create table kept (n int)`.execute(database.db);
    const killAndWait = async (n: number) => {
      await sql`insert into kept values (${n})`.execute(database.db);
      const [pid] = postmastersOf(pgdata);
      const restarted = lines.filter((l) => /running again/.test(l)).length;
      process.kill(pid as number, 'SIGKILL');
      // Started again: a new postmaster, and Rampart has said so.
      await expect.poll(() => lines.filter((l) => /running again/.test(l)).length).toBe(restarted + 1);
      expect(postmastersOf(pgdata)).not.toContain(pid);
      // The pool drops connections of the killed server as their queries fail; a retry gets a new one.
      await expect
        .poll(async () => {
          try {
            return (await sql<{ c: string }>`select count(*)::text as c from kept`.execute(database.db))
              .rows[0]?.c;
          } catch {
            return 'down';
          }
        })
        .toBe(String(n));
    };
    await killAndWait(1);
    expect(lines.join('\n')).toMatch(/stopped unexpectedly \(SIGKILL\): starting it again/);
    await killAndWait(2);
    await killAndWait(3);
    expect(lost.map((e) => e.message)).toEqual([]);
    // The fourth death within a minute: Rampart says so and hands over (serve shuts down).
    const [pid] = postmastersOf(pgdata);
    process.kill(pid as number, 'SIGKILL');
    await expect.poll(() => lost.length).toBe(1);
    expect(lost[0]?.message).toMatch(/stopped \(SIGKILL\) for the 4th time in a minute: giving up/);
  });

  it('a server killed during a long query is started again at once: the processes it left are ended', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const lines: string[] = [];
    const lost: Error[] = [];
    const database = await openEmbedded(data, 'test', {
      log: (l) => lines.push(l),
      onLost: (e) => lost.push(e),
    });
    cleanups.push(() => database.close());
    const busy = await busyBackend(data);
    // The killed postmaster's backend goes on with its query, attached to the server's shared
    // memory: until it ends, PostgreSQL refuses to start a new server on the folder.
    process.kill(postmasterPid(data), 'SIGKILL');
    await expect
      .poll(() => lines.join('\n'), { timeout: 30_000 })
      .toMatch(/ending \d+ process\(es\) of the stopped embedded database server[\s\S]*running again/);
    expect(lost.map((e) => e.message)).toEqual([]);
    // One restart: a launch that failed while starting is not taken for another death.
    expect(lines.filter((l) => /stopped unexpectedly/.test(l))).toHaveLength(1);
    expect(processEnded(busy.pid)).toBe(true);
    await expect(busy.query).rejects.toThrow();
    await expect
      .poll(async () => {
        try {
          return (await sql<{ n: number }>`select 1 as n`.execute(database.db)).rows[0]?.n;
        } catch {
          return 'down';
        }
      })
      .toBe(1);
  });

  it('a start after Rampart and its server were killed during a long query ends what they left', async () => {
    const dir = tempDir('rampart-emb-');
    const data = path.join(dir, 'data');
    const first = serve(data);
    const up = await first.started;
    if (!up.ok) throw new Error(up.stderr);
    const busy = await busyBackend(data);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    process.kill(postmasterPid(data), 'SIGKILL');
    const lines: string[] = [];
    const database = await openEmbedded(data, 'test', { log: (l) => lines.push(l) });
    cleanups.push(() => database.close());
    expect(lines.join('\n')).toMatch(/ending \d+ process\(es\) of the stopped embedded database server/);
    expect(processEnded(busy.pid)).toBe(true);
    await expect(busy.query).rejects.toThrow();
    expect((await sql<{ n: number }>`select 1 as n`.execute(database.db)).rows).toEqual([{ n: 1 }]);
  }, 120_000);
});

/** A tmpfs of `size` at a new folder (we are root in CI), unmounted after the file. */
function mountTmpfs(size: string, readOnly = false): string {
  const dir = tempDir('rampart-mnt-');
  execFileSync('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${size}${readOnly ? ',ro' : ''},mode=0755`,
    'tmpfs',
    dir,
  ]);
  cleanups.push(() => {
    execFileSync('umount', ['-l', dir]);
  });
  return dir;
}

const root = process.getuid?.() === 0;

describe.skipIf(!root)('the embedded server on a faulty disk [embedded]', () => {
  it('a data folder that cannot be written is refused with what to do', async () => {
    const ro = mountTmpfs('1m', true);
    const attempt = openEmbedded(path.join(ro, 'data'), 'test', quiet);
    await expect(attempt).rejects.toThrow(EmbeddedServerError);
    await expect(openEmbedded(path.join(ro, 'data'), 'test', quiet)).rejects.toThrow(
      /data folder .* is not writable \(EROFS.*Set RAMPART_DATA_DIR to a folder this user may write/s,
    );
  });

  it('a disk that fills during initdb leaves nothing half-made, and the next start on room succeeds', async () => {
    // initdb writes about 40 MB: 16 MB runs out on the way.
    const small = mountTmpfs('16m');
    const data = path.join(small, 'data');
    await expect(openEmbedded(data, 'test', quiet)).rejects.toThrow(
      /initdb failed[\s\S]*No space left on device/,
    );
    expect(fs.existsSync(layout(data).pgdata)).toBe(false);
    expect(fs.existsSync(`${layout(data).pgdata}.init`)).toBe(false);
    expect(fs.existsSync(layout(data).credentials)).toBe(false);
    expect(fs.existsSync(path.join(data, 'rampart.lock'))).toBe(false);
    execFileSync('mount', ['-o', 'remount,size=128m', small]);
    const database = await openEmbedded(data, 'test', quiet);
    expect((await sql<{ n: number }>`select 1 as n`.execute(database.db)).rows).toEqual([{ n: 1 }]);
    await database.close();
  });
});

describe("the server packages' library links", () => {
  it('are made where the package is writable, else in a folder of our own', () => {
    const dir = tempDir('rampart-libs-');
    // As root the mode bits do not stop a write: a read-only mount does.
    const pkg = root ? mountTmpfs('1m') : path.join(dir, 'pkg');
    const native = path.join(pkg, 'native');
    fs.mkdirSync(path.join(native, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(native, 'lib', 'libpq.so.5.18'), 'x');
    fs.writeFileSync(
      path.join(native, 'pg-symlinks.json'),
      JSON.stringify([{ source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so.5' }]),
    );
    expect(linkLibraries(native, path.join(dir, 'own'))).toEqual([]);
    expect(fs.readlinkSync(path.join(native, 'lib', 'libpq.so.5'))).toBe('libpq.so.5.18');
    // Again: nothing to do.
    expect(linkLibraries(native, path.join(dir, 'own'))).toEqual([]);

    fs.rmSync(path.join(native, 'lib', 'libpq.so.5'));
    if (root) execFileSync('mount', ['-o', 'remount,ro', pkg]);
    else fs.chmodSync(path.join(native, 'lib'), 0o555);
    expect(linkLibraries(native, path.join(dir, 'own'))).toEqual([path.join(dir, 'own')]);
    expect(fs.readFileSync(path.join(dir, 'own', 'libpq.so.5'), 'utf8')).toBe('x');
    if (!root) fs.chmodSync(path.join(native, 'lib'), 0o755);
  });
});

describe('the embedded database lock with a real server', () => {
  it('refuses a folder another live process holds', async () => {
    const dir = tempDir('rampart-emb-');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    cleanups.push(() => {
      holder.kill();
    });
    fs.mkdirSync(path.join(dir, 'data'));
    fs.writeFileSync(
      path.join(dir, 'data', 'rampart.lock'),
      JSON.stringify({ pid: holder.pid, command: 'serve', startedAt: '2026-11-21T10:00:00.000Z' }),
    );
    await expect(openEmbedded(path.join(dir, 'data'), 'test', quiet)).rejects.toThrow(DatabaseLockedError);
    expect(fs.existsSync(layout(path.join(dir, 'data')).pgdata)).toBe(false);
  });
});
