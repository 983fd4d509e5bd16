import fs from 'node:fs';
import path from 'node:path';

/**
 * Before Rampart ran its own PostgreSQL server, the embedded database was PGlite, whose files filled the data folder itself
 * (`PG_VERSION`, `base/`, `global/`…). Its files move into `pglite/` beside the new server's
 * `postgresql/`, where the first start of the new server reads them (./migrate-pglite.ts); they
 * stay there, untouched, until the user removes them.
 */
export const LEGACY_DIR = 'pglite';
/** Written into the legacy folder once its data is in the new server. */
export const LEGACY_MIGRATED = 'MOVED-TO-POSTGRESQL';

// What Rampart itself keeps in the data folder, which stays where it is.
const OURS = new Set([
  'rampart.lock',
  'postgresql',
  'postgresql.init',
  'postgresql.json',
  'postgresql.log',
  'lib',
  LEGACY_DIR,
]);

/** Whether `dataDir` is laid out as PGlite left it. */
export function hasLegacyLayout(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, 'PG_VERSION')) && !fs.existsSync(path.join(dataDir, 'postgresql'));
}

/** The legacy folder whose data still waits to be moved into the server, if any. */
export function pendingLegacyDir(dataDir: string): string | undefined {
  const dir = path.join(dataDir, LEGACY_DIR);
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) return undefined;
  return fs.existsSync(path.join(dir, LEGACY_MIGRATED)) ? undefined : dir;
}

/** Moves PGlite's files out of the way of the new server (renames: no copy, no size limit). */
export async function moveLegacyData(dataDir: string, log: (line: string) => void): Promise<void> {
  if (!hasLegacyLayout(dataDir)) return;
  const target = path.join(dataDir, LEGACY_DIR);
  log(`moving the PGlite database of an earlier Rampart into ${target}`);
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  // PG_VERSION last: until it moves, a start interrupted here sees the old layout and goes on.
  const entries = fs
    .readdirSync(dataDir)
    .sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
  for (const entry of entries) {
    if (OURS.has(entry) || entry.startsWith('.pwfile-')) continue;
    fs.renameSync(path.join(dataDir, entry), path.join(target, entry));
  }
}
