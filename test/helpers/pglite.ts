import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';

/**
 * A PGlite data directory as the embedded database of an earlier Rampart kept it, opened as
 * Rampart opened it then: PGlite behind a Unix socket, reached by `pg` with one connection. For
 * making old data directories to export (src/db/backup/pglite.ts); `close` stops PGlite.
 */
export async function openPgliteDataDir(dataDir: string): Promise<Database> {
  const pglite = await PGlite.create(dataDir);
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-pglite-'));
  const server = new PGLiteSocketServer({
    db: pglite,
    path: path.join(socketDir, '.s.PGSQL.5432'),
    maxConnections: 1,
  });
  await server.start();
  const connection: pg.ClientConfig = { host: socketDir, port: 5432, user: 'postgres', database: 'postgres' };
  const pool = new pg.Pool({ ...connection, max: 1 });
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'embedded',
    // One connection, one process: nobody to wait for.
    exclusive: (_name, work) => work(),
    connection,
    close: async () => {
      await db.destroy();
      await server.stop();
      await pglite.close();
      fs.rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
