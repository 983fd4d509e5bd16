import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openEmbedded, openPostgres } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export type DbKind = 'embedded' | 'postgres';

/** Every suite runs on the embedded server, and on PostgreSQL too when DATABASE_URL is set. */
export const DB_KINDS: DbKind[] = process.env.DATABASE_URL ? ['embedded', 'postgres'] : ['embedded'];

export interface TestDatabase {
  database: Database;
  /** postgres://… of this test's own database (postgres kind only). */
  url?: string;
  drop(): Promise<void>;
}

/** A database URL with another database name. */
export function withDatabaseName(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh PostgreSQL database for one test file, dropped afterwards. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is not set');
  const name = `rampart_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: withDatabaseName(adminUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function newTestDatabase(kind: DbKind, migrate = true): Promise<TestDatabase> {
  if (kind === 'embedded') {
    const database = await openEmbedded('memory://', 'test', { log: () => {} });
    if (migrate) await migrateToLatest(database.db);
    return { database, drop: () => database.close() };
  }
  const { url, drop } = await createPostgresDatabase();
  const database = await openPostgres(url, 5);
  if (migrate) await migrateToLatest(database.db);
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      await drop();
    },
  };
}
