import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import {
  BackupFormatError,
  type DumpSummary,
  dumpDatabase,
  NothingToBackUpError,
  type RestoreSummary,
  restoreDatabase,
} from '../db/backup/index.js';
import { openDatabase } from '../db/database.js';
import { systemClock } from '../lib/clock.js';
import { type CliEnv, describeDatabase, embeddedExists, NoDatabaseError, readConfig } from './runtime.js';

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
  // A command that only reads: it never creates a database where there is none.
  if (!config.databaseUrl && !embeddedExists(config.dataDir)) throw new NoDatabaseError(config);
  const database = await openDatabase(config, {
    command: 'backup',
    embedded: { log: (line) => cli.out.stderr(`${line}\n`) },
  });
  const backUp = (out: Writable): Promise<DumpSummary> => dumpDatabase(database.connection, out, { clock });
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
  } finally {
    await database.close();
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

/** `rampart restore FILE`: a backup into an empty database (see restoreDatabase). */
export async function restoreCommand(cli: CliEnv, file: string, opts: { json?: boolean }): Promise<void> {
  const config = readConfig(cli);
  cli.out.stderr(`${describeDatabase(config)}\n`);
  const input = file === '-' ? (cli.stdin ?? Readable.from([])) : openBackup(file);
  let summary: RestoreSummary;
  // Opened without migrating or creating anything: the restore brings its own schema and data.
  const database = await openDatabase(config, {
    command: 'restore',
    embedded: { log: (line) => cli.out.stderr(`${line}\n`) },
  }).catch((error: unknown) => {
    input.destroy();
    throw error;
  });
  try {
    summary = await restoreDatabase(database.connection, input);
  } catch (error) {
    // A bad file's message names its line: say which file.
    if (error instanceof BackupFormatError)
      throw new Error(`${file === '-' ? 'stdin' : file}: ${error.message}`);
    throw error;
  } finally {
    input.destroy();
    await database.close();
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
