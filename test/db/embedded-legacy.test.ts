// An installation made by an earlier Rampart keeps its data in a PGlite data folder. The
// first start of this Rampart moves that data into its PostgreSQL server, once, and keeps the
// old files until the user removes them.
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { LEGACY_MIGRATED } from '../../src/db/embedded/legacy.js';
import { layout } from '../../src/db/embedded/server.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { LocalInvalidationBus } from '../../src/lib/invalidation-bus.js';
import { buildServices } from '../../src/services.js';
import { openPgliteDataDir } from '../helpers/pglite.js';
import { type Serve, serveEmbedded, stopServe } from '../helpers/serve-embedded.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/**
 * A data folder as an earlier Rampart left it: PGlite's files in the folder itself, migrated and
 * holding an organisation and an analyst with a password, made through Rampart's services.
 */
async function earlierInstallation(dataDir: string): Promise<void> {
  const database = await openPgliteDataDir(dataDir);
  try {
    await migrateToLatest(database.db);
    const services = buildServices(database, () => new Date(), new LocalInvalidationBus(), {
      authCacheSeconds: 0,
      sessionIdleMinutes: 30,
      sessionMaxHours: 12,
    });
    const { organization } = await services.organizations.ensureFirst();
    const ctx = { organizationId: organization.id, actor: { type: 'cli' as const, id: null } };
    await services.users.create(ctx, {
      email: 'ana@example.com',
      role: 'Analyst',
      password: 'correct horse battery',
    });
  } finally {
    await database.close();
  }
}

/** `rampart serve` on `dataDir`, with its URL once it listens. */
function serve(dataDir: string): Serve & { up: Promise<string> } {
  const s = serveEmbedded(dataDir, (fn) => cleanups.push(fn));
  const up = s.started.then((r) => {
    if (!r.ok) throw new Error(`serve exited ${r.code}: ${r.stderr}`);
    return r.url;
  });
  return { ...s, up };
}

describe('a data folder of an earlier Rampart (PGlite) [embedded]', () => {
  it('is moved into the new server on the first start, once; its files stay until the user deletes them', {
    timeout: 240_000,
  }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-legacy-'));
    fs.chmodSync(dir, 0o755);
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const data = path.join(dir, 'data');
    await earlierInstallation(data);
    expect(fs.existsSync(path.join(data, 'PG_VERSION'))).toBe(true);

    const first = serve(data);
    const url = await first.up;
    expect(first.stderr()).toMatch(/moving the PGlite database of an earlier Rampart into .*\/data\/pglite/);
    expect(first.stderr()).toMatch(/copied \d+ rows of \d+ tables from PGlite; the old files stay in/);
    // The analyst made on PGlite signs in on the new server with her password.
    const signIn = await fetch(`${url}/api/latest/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Email: 'ana@example.com', Password: 'correct horse battery' }),
    });
    expect(signIn.status).toBe(200);
    expect(await stopServe(first)).toBe(0);

    expect(fs.existsSync(path.join(data, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(fs.readFileSync(path.join(data, 'pglite', LEGACY_MIGRATED), 'utf8')).toMatch(/copied into/);
    expect(fs.existsSync(path.join(data, 'PG_VERSION'))).toBe(false);
    expect(fs.existsSync(path.join(layout(data).pgdata, 'PG_VERSION'))).toBe(true);

    // The next start copies nothing again, and the data is still there once.
    const second = serve(data);
    await second.up;
    expect(second.stderr()).not.toMatch(/copying|moving/);
    const credentials = JSON.parse(fs.readFileSync(layout(data).credentials, 'utf8'));
    const socketDir = fs
      .readFileSync(path.join(layout(data).pgdata, 'postmaster.pid'), 'utf8')
      .split('\n')[4];
    const client = new pg.Client({ host: socketDir, port: 5432, ...credentials });
    await client.connect();
    const users = await client.query<{ email: string }>('select email from users order by email');
    await client.end();
    expect(users.rows.map((u) => u.email)).toEqual(['admin@rampart.local', 'ana@example.com']);
    expect(await stopServe(second)).toBe(0);
  });
});
