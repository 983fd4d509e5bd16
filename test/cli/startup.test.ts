import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../helpers/databases.js';

interface Started {
  child: ChildProcess;
  /** The `serve --json` line, or why the process ended before printing it. */
  result: Promise<
    { ok: true; line: Record<string, unknown> } | { ok: false; code: number | null; stderr: string }
  >;
}

/** `rampart serve --json` as its own process, as an operator's second instance would be. */
function startInstance(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const result = new Promise<Awaited<Started['result']>>((resolve) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ ok: true, line: JSON.parse(line) });
    });
    child.on('exit', (code) => resolve({ ok: false, code, stderr }));
  });
  return { child, result };
}

async function stopInstance(s: Started): Promise<number | null> {
  if (s.child.exitCode !== null) return s.child.exitCode;
  const exited = once(s.child, 'exit');
  s.child.kill('SIGTERM');
  const [code] = await exited;
  return code as number | null;
}

// Operators run several instances against one PostgreSQL; they may all start at once on a new
// database. The embedded database admits one process (its data directory is locked).
describe.skipIf(!process.env.DATABASE_URL)('several instances starting at once [postgres]', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('three instances on a new database all come up; one does the first-start work, once', {
    timeout: 240_000,
  }, async () => {
    const db = await createPostgresDatabase();
    cleanups.push(db.drop);
    const importDir = fs.mkdtempSync('/tmp/rampart-startup-');
    cleanups.push(async () => fs.rmSync(importDir, { recursive: true, force: true }));
    const env = {
      DATABASE_URL: db.url,
      RAMPART_PORT: '0',
      RAMPART_LOG_LEVEL: 'silent',
      RAMPART_IMPORT_DIR: importDir,
      RAMPART_DATA_DIR: importDir,
    };
    const instances = [startInstance(env), startInstance(env), startInstance(env)];
    cleanups.push(async () => {
      for (const s of instances) s.child.kill('SIGKILL');
    });
    const results = await Promise.all(instances.map((s) => s.result));
    for (const r of results) expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    const lines = results.map((r) => (r.ok ? r.line : {})) as Array<{
      Admin: { Email: string; Created: boolean; Password: string | null };
    }>;
    // Exactly one instance created the Admin and printed its password.
    expect(lines.filter((l) => l.Admin.Created)).toHaveLength(1);
    expect(lines.filter((l) => l.Admin.Password !== null)).toHaveLength(1);
    for (const l of lines) expect(l.Admin.Email).toBe('admin@rampart.local');

    // Each instance answers; stopping waits for its background knowledge base load.
    for (const l of lines as unknown as Array<{ Url: string }>) {
      const res = await fetch(`${l.Url}/api/latest/status`);
      expect(res.status).toBe(200);
    }
    for (const s of instances) expect(await stopInstance(s)).toBe(0);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const count = async (q: string) => Number((await client.query(q)).rows[0].n);
      expect(await count('select count(*) as n from organizations')).toBe(1);
      expect(await count('select count(*) as n from users')).toBe(1);
      expect(await count('select count(*) as n from kysely_migration')).toBeGreaterThan(0);
      // The knowledge base (one file per feed) was loaded by one instance, not once per instance.
      const kbFiles = fs.readdirSync('knowledge-base').filter((f) => /\.(json|csv)\.gz$/.test(f));
      expect(await count(`select count(*) as n from intel_loads where source like 'knowledge-base/%'`)).toBe(
        kbFiles.length,
      );
    } finally {
      await client.end();
    }
  });
});

// Seen once under CPU load (issue 23): a fresh embedded install's serve ended with code 1 at
// start, its last log line a job worker's failed claim. A start that fails after the app was built
// (here: its port is taken) stopped nothing before closing the database, so the worker's next
// claim failed on a closed pool. It must say why it cannot start, stop its background work first
// and release the data directory.
describe('a start that cannot listen', () => {
  it('says which port is taken and which setting changes it, logs no failed job, and releases the data directory', {
    timeout: 240_000,
  }, async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as net.AddressInfo).port;
    const dataDir = fs.mkdtempSync('/tmp/rampart-taken-');
    try {
      const env = {
        RAMPART_DATA_DIR: dataDir,
        RAMPART_IMPORT_DIR: `${dataDir}/imports`,
        RAMPART_INTEL_KB: 'off',
        RAMPART_LOG_LEVEL: 'debug',
        DATABASE_URL: '',
      };
      const blocked = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
        env: { ...process.env, ...env, RAMPART_PORT: String(taken) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      blocked.stdout?.on('data', (d) => {
        stdout += d;
      });
      blocked.stderr?.on('data', (d) => {
        stderr += d;
      });
      const [code] = await once(blocked, 'exit');
      expect(code).toBe(1);
      expect(stderr).toContain(`Port ${taken} on 127.0.0.1 is in use`);
      expect(stderr).toContain('RAMPART_PORT');
      expect(stdout).not.toContain('job failed');
      // The data directory's lock went with it: the next start on a free port comes up.
      const next = startInstance({ ...env, RAMPART_PORT: '0', RAMPART_LOG_LEVEL: 'silent' });
      const up = await next.result;
      expect(up.ok, up.ok ? '' : up.stderr).toBe(true);
      const stopped = once(next.child, 'exit');
      next.child.kill('SIGTERM');
      expect(await stopped).toEqual([0, null]);
    } finally {
      holder.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
