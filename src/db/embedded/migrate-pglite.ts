import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { NothingToBackUpError } from '../backup/format.js';
import { restorePgliteDataDir } from '../backup/pglite.js';
import { LEGACY_MIGRATED, pendingLegacyDir } from './legacy.js';

/** Whether the server's database already holds Rampart's data (a copy that ended before its mark). */
async function holdsRampart(connection: pg.ClientConfig): Promise<boolean> {
  const client = new pg.Client(connection);
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ present: boolean }>(
      `select to_regclass('public.organizations') is not null as present`,
    );
    if (!rows[0]?.present) return false;
    const orgs = await client.query<{ n: string }>('select count(*)::text as n from organizations');
    return orgs.rows[0]?.n !== '0';
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Copies the data of an earlier Rampart's PGlite database (moved to `pglite/` by moveLegacyData)
 * into the new server, once: PGlite writes Rampart's backup format and the restore reads it as it
 * comes, in one transaction, so a copy that fails leaves the server's database as it was and is
 * tried again at the next start. The old files stay, marked as moved, until the user deletes them.
 */
export async function importLegacyData(
  dataDir: string,
  connection: pg.ClientConfig,
  log: (line: string) => void,
): Promise<void> {
  const legacy = pendingLegacyDir(dataDir);
  if (!legacy) return;
  const mark = (what: string) =>
    fs.writeFileSync(path.join(legacy, LEGACY_MIGRATED), `${what}\nThis folder can be deleted.\n`);
  if (await holdsRampart(connection)) {
    mark('The data of this PGlite database was copied into ../postgresql by an earlier start.');
    return;
  }
  log(`copying the data of the PGlite database in ${legacy} into the embedded PostgreSQL server`);
  let summary: Awaited<ReturnType<typeof restorePgliteDataDir>>;
  try {
    summary = await restorePgliteDataDir(legacy, connection);
  } catch (error) {
    if (error instanceof NothingToBackUpError) {
      // A Rampart that stopped before its first migration: there is nothing to copy.
      mark('This PGlite database held no Rampart data: nothing was copied.');
      log(`the PGlite database in ${legacy} held no Rampart data: nothing to copy`);
      return;
    }
    throw new Error(
      `Could not copy the data of the earlier PGlite database in ${legacy} into the new server: ` +
        `${(error as Error).message}\nNothing was changed in ${legacy}; Rampart tries again at its next start.`,
    );
  }
  const rows = summary.tables.reduce((sum, t) => sum + t.rows, 0);
  mark(`The data of this PGlite database was copied into ../postgresql (${rows} rows).`);
  log(
    `copied ${rows} rows of ${summary.tables.length} tables from PGlite; the old files stay in ${legacy} ` +
      'until you delete that folder',
  );
}
