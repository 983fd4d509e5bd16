import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import type pg from 'pg';
import {
  BackupFormatError,
  type DumpSummary,
  dumpDatabase,
  exportPgliteDataDir,
  NothingToBackUpError,
  type RestoreSummary,
  restoreDatabase,
} from '../db/backup/index.js';
import { acquireDataDirLock } from '../db/lock.js';
import { systemClock } from '../lib/clock.js';
import { type CliEnv, describeDatabase, NoDatabaseError, readConfig } from './runtime.js';

export interface BackupFlags {
  output?: string;
  json?: boolean;
}

/** `rampart-backup-20310203-040506.sql`: the time of the backup, UTC, sorting in time order. */
export function defaultBackupName(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d{3}Z$/, '')
    .replaceAll('-', '')
    .replaceAll(':', '')
    .replace('T', '-');
  return `rampart-backup-${stamp}.sql`;
}

/** A Writable onto the command's stdout, which takes text: UTF-8 split across chunks is kept whole. */
function stdoutWritable(cli: CliEnv): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      cli.out.stdout(decoder.write(chunk));
      callback();
    },
    final(callback) {
      const rest = decoder.end();
      if (rest) cli.out.stdout(rest);
      callback();
    },
  });
}

const rowsIn = (tables: { rows: number }[]) => tables.reduce((sum, t) => sum + t.rows, 0);

/**
 * `rampart backup [--output FILE]`: the whole database in Rampart's backup format (see
 * src/db/backup), to FILE (default a timestamped name in the current folder; `-` for stdout).
 */
export async function backupCommand(cli: CliEnv, opts: BackupFlags): Promise<void> {
  const config = readConfig(cli);
  const clock = cli.clock ?? systemClock;
  const toStdout = opts.output === '-';
  const file = toStdout ? null : path.resolve(opts.output ?? defaultBackupName(clock()));
  cli.out.stderr(`${describeDatabase(config)}\n`);
  // Never over an existing file: a backup is often what is left of a database.
  if (file && fs.existsSync(file)) throw new Error(`${file} already exists: name another --output`);
  const backUp = async (out: Writable): Promise<DumpSummary> => {
    if (config.databaseUrl) return dumpDatabase({ connectionString: config.databaseUrl }, out, { clock });
    return backUpEmbedded(config.dataDir, out, clock);
  };
  let summary: DumpSummary;
  try {
    if (file) {
      const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
      try {
        summary = await backUp(out);
        out.end();
        await finished(out);
      } catch (error) {
        out.destroy();
        fs.rmSync(file, { force: true });
        throw error;
      }
    } else if (cli.stdoutStream) {
      // Not ended: it is the process's stdout.
      summary = await backUp(cli.stdoutStream);
    } else {
      const out = stdoutWritable(cli);
      summary = await backUp(out);
      out.end();
      await finished(out);
    }
  } catch (error) {
    if (error instanceof NothingToBackUpError) throw new NoDatabaseError(config);
    throw error;
  }
  const rows = rowsIn(summary.tables);
  const where = file ?? 'stdout';
  const report = opts.json
    ? `${JSON.stringify({ File: file, Rows: rows, Tables: summary.tables.length, Migrations: summary.migrations.length })}\n`
    : `Backed up ${rows} rows of ${summary.tables.length} tables to ${where}\n`;
  // With the backup on stdout, the report goes to stderr.
  if (toStdout) cli.out.stderr(report);
  else cli.out.stdout(report);
}

/**
 * The embedded database of this version is PGlite: its data directory is read directly, while
 * no server holds it (the data directory's lock; a running server makes this exit 4).
 */
async function backUpEmbedded(dataDir: string, out: Writable, clock: () => Date): Promise<DumpSummary> {
  if (dataDir === 'memory://' || !fs.existsSync(path.join(dataDir, 'PG_VERSION')))
    throw new NothingToBackUpError();
  const release = acquireDataDirLock(dataDir, 'backup');
  try {
    return await exportPgliteDataDir(dataDir, out, { clock });
  } finally {
    release();
  }
}

/** `rampart restore FILE`: a backup into an empty database (see restoreDatabase). */
export async function restoreCommand(cli: CliEnv, file: string, opts: { json?: boolean }): Promise<void> {
  const config = readConfig(cli);
  cli.out.stderr(`${describeDatabase(config)}\n`);
  if (!config.databaseUrl)
    throw new Error(
      'rampart restore loads into PostgreSQL: the embedded database of this version (PGlite) cannot take COPY data from a client. Set DATABASE_URL to a new, empty database and restore there.',
    );
  const input = file === '-' ? (cli.stdin ?? Readable.from([])) : openBackup(file);
  const clientConfig: pg.ClientConfig = { connectionString: config.databaseUrl };
  let summary: RestoreSummary;
  try {
    summary = await restoreDatabase(clientConfig, input);
  } catch (error) {
    // A bad file's message names its line: say which file.
    if (error instanceof BackupFormatError)
      throw new Error(`${file === '-' ? 'stdin' : file}: ${error.message}`);
    throw error;
  } finally {
    input.destroy();
  }
  const rows = rowsIn(summary.tables);
  const { header } = summary;
  cli.out.stdout(
    opts.json
      ? `${JSON.stringify({
          Rows: rows,
          Tables: summary.tables.length,
          BackupCreatedAt: header.createdAt.toISOString(),
          BackupRampartVersion: header.rampartVersion,
          MigrationsAppliedAfter: summary.migratedAfter,
        })}\n`
      : `Restored ${rows} rows of ${summary.tables.length} tables from a backup of ${header.createdAt.toISOString()} (Rampart ${header.rampartVersion})` +
          (summary.migratedAfter.length
            ? `; then applied ${summary.migratedAfter.length} migration(s): ${summary.migratedAfter.join(', ')}\n`
            : '\n'),
  );
}

function openBackup(file: string): Readable {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new Error(`No such file: ${file}`);
  }
  if (!stat.isFile()) throw new Error(`${file} is not a file`);
  return fs.createReadStream(file);
}
