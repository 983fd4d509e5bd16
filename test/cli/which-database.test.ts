import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/main.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase } from '../helpers/databases.js';

/**
 * Issue 23, item 19: every command names the database it opens (its first line on stderr), and a
 * command that only reads never creates one: `rampart intel status` run in the wrong folder made
 * a new 41 MB ./data and reported "never loaded".
 */
const READ_ONLY = [
  ['intel', 'status'],
  ['org', 'list'],
  ['apikey', 'list', '--user', 'admin@rampart.local'],
];

describe('rampart CLI on the embedded database: which one, and only an existing one', () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-which-'));
  // Passable by others, as a user's folders are: as root, the server runs as its own account.
  fs.chmodSync(parent, 0o755);
  const dataDir = path.join(parent, 'data');
  // Relative, as a user types it: the command names it in full.
  const relative = path.relative(process.cwd(), dataDir);
  const env = { RAMPART_LOG_LEVEL: 'silent', RAMPART_INTEL_KB: 'off', RAMPART_DATA_DIR: relative };
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  it.each(READ_ONLY)(
    '%s %s… refuses a folder without a database, naming it, and creates nothing',
    async (...argv) => {
      const r = await runCliCapturing(env, argv);
      expect(r.code).not.toBe(EXIT.ok);
      const lines = r.stderr.split('\n');
      expect(lines[0]).toBe(`Using the embedded database at ${dataDir}`);
      expect(r.stderr).toContain(`no Rampart database at ${dataDir} (set RAMPART_DATA_DIR or DATABASE_URL)`);
      expect(r.stdout).toBe('');
      expect(fs.existsSync(dataDir)).toBe(false);
    },
  );

  it('a command that writes creates it, saying where; then the reading ones read it', async () => {
    const migrate = await runCliCapturing(env, ['migrate']);
    expect(migrate.code, migrate.stderr).toBe(EXIT.ok);
    expect(migrate.stderr.split('\n')[0]).toBe(`Using the embedded database at ${dataDir}`);
    expect(fs.existsSync(path.join(dataDir, 'postgresql', 'PG_VERSION'))).toBe(true);
    expect(migrate.stderr.split('\n')[1]).toBe(
      `creating the embedded PostgreSQL 18.4 server in ${dataDir}/postgresql`,
    );
    const status = await runCliCapturing(env, ['intel', 'status']);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    expect(status.stderr).toBe(`Using the embedded database at ${dataDir}\n`);
    expect(status.stdout).toMatch(/^kev +0 records; never loaded$/m);
  });
});

describe.runIf(process.env.DATABASE_URL)(
  'rampart CLI on PostgreSQL: which one, and only an existing one [postgres]',
  () => {
    let url = '';
    let drop = async () => {};
    let where = '';
    beforeAll(async () => {
      ({ url, drop } = await createPostgresDatabase());
      const u = new URL(url);
      where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
    });
    afterAll(() => drop());

    const tables = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const res = await client.query(
          "select count(*)::int as n from pg_tables where schemaname = 'public'",
        );
        return res.rows[0].n as number;
      } finally {
        await client.end();
      }
    };

    it('names the server and database, never the password, and refuses one without Rampart in it', async () => {
      const withPassword = url.replace('postgres://postgres@', 'postgres://postgres:hunter2secret@');
      for (const argv of READ_ONLY) {
        const r = await runCliCapturing({ RAMPART_LOG_LEVEL: 'silent', DATABASE_URL: withPassword }, argv);
        expect(r.code).not.toBe(EXIT.ok);
        expect(r.stderr.split('\n')[0]).toBe(`Using PostgreSQL at ${where}`);
        expect(r.stderr).toContain(`no Rampart database at ${where} (set RAMPART_DATA_DIR or DATABASE_URL)`);
        expect(r.stderr).not.toContain('hunter2secret');
      }
      expect(await tables()).toBe(0);
      const migrate = await runCliCapturing({ RAMPART_LOG_LEVEL: 'silent', DATABASE_URL: url }, ['migrate']);
      expect(migrate.code, migrate.stderr).toBe(EXIT.ok);
      expect(migrate.stderr).toBe(`Using PostgreSQL at ${where}\n`);
      expect(await tables()).toBeGreaterThan(0);
    });
  },
);
