import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportPgliteDataDir,
  RestoreRefusedError,
  restoreDatabase,
  restorePgliteDataDir,
} from '../../../src/db/backup/index.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { loadDemo } from '../../../src/demo/seed.js';
import { LocalInvalidationBus } from '../../../src/lib/invalidation-bus.js';
import { buildServices } from '../../../src/services.js';
import { createPostgresDatabase } from '../../helpers/databases.js';
import { openPgliteDataDir } from '../../helpers/pglite.js';
import { collector, fingerprint, fingerprintOf, rowsOf } from './helpers.js';

// An installation's data moving from the old embedded database (a PGlite data directory) to a
// PostgreSQL server: export, restore, and the same rows in every table.
describe.runIf(Boolean(process.env.DATABASE_URL))('exporting a PGlite data directory', () => {
  let dataDir: string;
  const dropped: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-pglite-export-'));
    // Made and filled as Rampart's embedded database was, through its services.
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
      await loadDemo(services, ctx);
      await services.users.create(ctx, { email: 'ada@example.com', name: 'Ada Lovelace', role: 'Admin' });
      await services.organizations.create('Second\tOrg \\ ü');
    } finally {
      await database.close();
    }
  }, 180_000);
  afterAll(async () => {
    for (const drop of dropped) await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes the backup format, which restores into PostgreSQL with the same rows in every table', async () => {
    const out = collector();
    const exported = await exportPgliteDataDir(dataDir, out, {
      clock: () => new Date('2030-01-01T00:00:00Z'),
    });
    const text = out.text();
    const head = text.split('\n', 5);
    expect(head.slice(0, 2)).toEqual(['-- Rampart backup', '-- Format: 1']);
    expect(head[3]).toMatch(/^-- PostgreSQL version: 1[5-9]/);
    expect(head[4]).toBe('-- Created at: 2030-01-01T00:00:00.000Z');
    expect(exported.tables.find((t) => t.name === 'findings')?.rows).toBeGreaterThan(35);

    const pglite = await PGlite.create(dataDir);
    const before = await fingerprintOf(async <R>(q: string) => (await pglite.query<R>(q)).rows);
    await pglite.close();

    const target = await createPostgresDatabase();
    dropped.push(target.drop);
    const restored = await restoreDatabase({ connectionString: target.url }, Readable.from([text]));
    expect(restored.tables).toEqual(exported.tables);
    const after = await fingerprint(target.url);
    expect(after).toEqual(before);
    expect(Number(after.assets?.split(' ')[0])).toBe(17);
    expect(await rowsOf(target.url, "select name from organizations where name like 'Second%'")).toEqual([
      { name: 'Second\tOrg \\ ü' },
    ]);
    expect(await rowsOf(target.url, "select name, role from users where email = 'ada@example.com'")).toEqual([
      { name: 'Ada Lovelace', role: 'Admin' },
    ]);
  }, 180_000);

  it('writes the same rows when it copies a table a page at a time', async () => {
    const whole = collector();
    const byPage = collector();
    const clock = () => new Date('2030-01-01T00:00:00Z');
    await exportPgliteDataDir(dataDir, whole, { clock });
    const summary = await exportPgliteDataDir(dataDir, byPage, { clock, pagesPerRange: 1 });
    expect(summary.tables.find((t) => t.name === 'findings')?.rows).toBeGreaterThan(35);
    expect(byPage.text()).toBe(whole.text());
    // Which is a test of the ranges only if some table spans several pages.
    const pglite = await PGlite.create(dataDir);
    const [size] = (
      await pglite.query<{ pages: number }>("select pg_relation_size('findings')::int / 8192 as pages")
    ).rows;
    await pglite.close();
    expect(size?.pages).toBeGreaterThan(2);
  }, 180_000);

  it('moves the data directory into PostgreSQL in one stream, or stops both sides when refused', async () => {
    const pglite = await PGlite.create(dataDir);
    const before = await fingerprintOf(async <R>(q: string) => (await pglite.query<R>(q)).rows);
    await pglite.close();
    const target = await createPostgresDatabase();
    dropped.push(target.drop);
    // Small ranges: the export waits on the restore many times over.
    const summary = await restorePgliteDataDir(
      dataDir,
      { connectionString: target.url },
      { pagesPerRange: 1 },
    );
    expect(summary.tables.find((t) => t.name === 'findings')?.rows).toBeGreaterThan(35);
    expect(await fingerprint(target.url)).toEqual(before);

    // Into a database that now holds data: refused, and the export does not wait forever.
    const error = await restorePgliteDataDir(
      dataDir,
      { connectionString: target.url },
      { pagesPerRange: 1 },
    ).catch((e) => e);
    expect(error).toBeInstanceOf(RestoreRefusedError);
    expect(await fingerprint(target.url)).toEqual(before);

    // A folder that is no PGlite data directory: the export's error, and nothing restored.
    const empty = await createPostgresDatabase();
    dropped.push(empty.drop);
    const notData = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-not-pglite-'));
    fs.writeFileSync(path.join(notData, 'PG_VERSION'), 'not a version\n');
    const broken = await restorePgliteDataDir(notData, { connectionString: empty.url }).catch((e) => e);
    fs.rmSync(notData, { recursive: true, force: true });
    expect(broken).toBeInstanceOf(Error);
    expect(await rowsOf(empty.url, "select to_regclass('kysely_migration') as t")).toEqual([{ t: null }]);
  }, 180_000);
});
