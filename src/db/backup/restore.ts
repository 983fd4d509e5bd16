import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { VERSION } from '../../version.js';
import { KNOWN_MIGRATIONS, migrateTo, migrateToLatest } from '../migrate.js';
import type { DB } from '../schema.js';
import { appliedMigrations, listSequences, listTables, type Query, type TableInfo } from './catalog.js';
import {
  BackupFormatError,
  cut,
  FIRST_LINE,
  FORMAT_VERSION,
  type Header,
  LAST_LINE,
  parseHeader,
  parseStatement,
  quoteIdent,
  RestoreRefusedError,
} from './format.js';
import { LineReader } from './lines.js';

export interface RestoreOptions {
  /** Called after each table is loaded (a long restore's progress, for a log). */
  onTable?: (table: string, rows: number) => void;
}

export interface RestoreSummary {
  header: Header;
  /** Rows loaded per table, in the order loaded. */
  tables: { name: string; rows: number }[];
  sequences: number;
  /** The migrations applied after loading, from the backup's to this Rampart's latest. */
  migratedAfter: string[];
}

// The header is a few dozen lines; more before its end means this is not one.
const MAX_HEADER_LINES = 10_000;
// The lock Rampart's processes take for first-start work (database.ts, `exclusive`): held for the
// restore, so that a Rampart starting meanwhile neither migrates nor creates an organisation.
const FIRST_START_LOCK = 'rampart:first-start';

/** Reads the header's lines and parses them, before anything touches the database. */
async function readHeader(reader: LineReader): Promise<Header> {
  // Known from its first bytes, before looking for the end of a line in what may be binary.
  if (!(await reader.beginsWith(`${FIRST_LINE}\n`))) {
    if (await reader.atEnd()) throw new BackupFormatError('the file is empty: not a Rampart backup');
    throw new BackupFormatError(`not a Rampart backup (it does not begin with "${FIRST_LINE}")`, 1);
  }
  const lines: string[] = [];
  for (;;) {
    const line = await reader.nextLine();
    if (line === null) break;
    lines.push(line);
    if (lines.length === 1 && line !== FIRST_LINE) break;
    if (line === '--' || lines.length >= MAX_HEADER_LINES) break;
  }
  if (lines.length === 0) throw new BackupFormatError('the file is empty: not a Rampart backup');
  return parseHeader(lines).header;
}

/** Refuses a backup this Rampart cannot read or bring to its own schema. */
function checkCompatible(header: Header): void {
  if (header.format > FORMAT_VERSION)
    throw new RestoreRefusedError(
      `The backup is in format ${header.format}, from Rampart ${header.rampartVersion}; this Rampart (${VERSION}) reads format ${FORMAT_VERSION} and older. Restore it with Rampart ${header.rampartVersion} or later.`,
    );
  const unknown = header.migrations.find((m) => !KNOWN_MIGRATIONS.includes(m));
  if (unknown)
    throw new RestoreRefusedError(
      `The backup comes from a newer Rampart (${header.rampartVersion}): its database had migration ${unknown}, which this Rampart (${VERSION}) does not know. Restore it with Rampart ${header.rampartVersion} or later.`,
    );
  const expected = KNOWN_MIGRATIONS.slice(0, header.migrations.length);
  const differs = header.migrations.findIndex((m, i) => m !== expected[i]);
  if (differs >= 0 || header.migrations.length === 0)
    throw new RestoreRefusedError(
      header.migrations.length === 0
        ? 'The backup lists no migrations: it holds no Rampart schema.'
        : `The backup's migrations are not this Rampart's in order: it has ${header.migrations[differs]} where this Rampart has ${expected[differs]} first.`,
    );
}

/**
 * Refuses a target that holds Rampart data or whose schema is past the backup's. Every Rampart
 * process creates the first organisation when it first starts, so a database that Rampart has
 * used has one; an organisation-less database holds at most the rows its migrations seed.
 */
async function checkTarget(query: Query, header: Header): Promise<void> {
  const applied = await appliedMigrations(query);
  if (applied.length === 0) {
    // Not Rampart's: the restore would mix its tables with these (and empty them all before loading).
    const others = await query<{ name: string }>(
      `select relname as name from pg_catalog.pg_class
        where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') order by relname limit 3`,
    );
    if (others.length > 0)
      throw new RestoreRefusedError(
        `The database has tables of its own (${others.map((t) => t.name).join(', ')}) and no Rampart schema: restore into a new, empty database.`,
      );
    return;
  }
  const [orgs] = await query<{ n: number }>(
    `select case when to_regclass('public.organizations') is null then 0
                 else (select count(*)::int from public.organizations) end as n`,
  );
  if ((orgs?.n ?? 0) > 0)
    throw new RestoreRefusedError(
      `The database already holds Rampart data (${orgs?.n} organisation${orgs?.n === 1 ? '' : 's'}): a restore goes only into an empty database, so that nothing is lost or mixed. Restore into a new database (or a new data directory).`,
    );
  const ahead = applied.find((m, i) => m !== header.migrations[i]);
  if (ahead)
    throw new RestoreRefusedError(
      `The database is migrated past the backup (it has ${ahead}, the backup ends at ${header.migrations.at(-1)}): restore into a new, unmigrated database.`,
    );
}

/** A Kysely on the one client, for the migrator (which then runs inside the restore's transaction). */
function kyselyOnClient(client: pg.Client): Kysely<DB> {
  const pool: PostgresPool = {
    connect: async () => ({ query: client.query.bind(client), release: () => {} }) as never,
    end: async () => {},
  };
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/** The file line a PostgreSQL COPY error points at (its `where` says "COPY t, line N, …"). */
function copyErrorLine(error: unknown, copyLine: number): number {
  const where = (error as { where?: string }).where ?? '';
  const match = /COPY [^,]+, line (\d+)/.exec(where);
  return match ? copyLine + Number(match[1]) : copyLine;
}

/** Streams one COPY block from `reader` into `table` with COPY … FROM STDIN; returns its rows. */
async function loadCopyBlock(
  client: pg.Client,
  reader: LineReader,
  table: TableInfo,
  columns: string[],
  copyLine: number,
): Promise<number> {
  const stream = client.query(
    copyFrom(`COPY public.${quoteIdent(table.name)} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`),
  );
  let failure: unknown;
  stream.on('error', (error) => {
    failure ??= error;
  });
  const serverError = (error: unknown) =>
    new BackupFormatError(
      `the rows of ${table.name} were refused: ${(error as Error).message}`,
      copyErrorLine(error, copyLine),
    );
  try {
    const rows = await reader.copyRows(async (chunk) => {
      if (failure) throw serverError(failure);
      if (!stream.write(chunk)) await once(stream, 'drain');
    });
    stream.end();
    await finished(stream);
    return rows;
  } catch (error) {
    // Destroying the stream sends CopyFail: the server ends the COPY, the transaction is aborted.
    if (!stream.destroyed) stream.destroy();
    if (error instanceof BackupFormatError) throw error;
    throw serverError(failure ?? error);
  }
}

/**
 * Restores a backup (dumpDatabase's format) into the empty database that `clientConfig` reaches,
 * reading `input` as a stream. In one transaction: it migrates the database to exactly the
 * backup's migrations, loads every table with COPY … FROM STDIN (in the file's order, which is
 * their foreign keys' order), sets the sequences, then migrates to this Rampart's latest. Any
 * error rolls all of it back, leaving the database as it was.
 *
 * Throws BackupFormatError (naming the line) for input that is not a whole, valid backup, and
 * RestoreRefusedError when the database already holds Rampart data or the backup is too new.
 */
export async function restoreDatabase(
  clientConfig: pg.ClientConfig,
  input: Readable,
  options: RestoreOptions = {},
): Promise<RestoreSummary> {
  const reader = new LineReader(input);
  const header = await readHeader(reader);
  checkCompatible(header);
  const client = new pg.Client(clientConfig);
  // A connection lost mid-restore ends its transaction, which the server rolls back.
  client.on('error', () => {});
  await client.connect();
  const query: Query = async <R>(text: string, params?: unknown[]) =>
    (await client.query(text, params)).rows as R[];
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [FIRST_START_LOCK]);
    await checkTarget(query, header);
    const db = kyselyOnClient(client);
    await migrateTo(db, header.migrations.at(-1) as string, { inTransaction: true });
    const summary = await loadBody(client, query, reader, options);
    const migratedAfter = await migrateToLatest(db, { inTransaction: true });
    await client.query('commit');
    return { header, ...summary, migratedAfter };
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Everything after the header: COPY blocks and sequence values, up to the closing line. */
async function loadBody(
  client: pg.Client,
  query: Query,
  reader: LineReader,
  options: RestoreOptions,
): Promise<Pick<RestoreSummary, 'tables' | 'sequences'>> {
  const known = new Map((await listTables(query)).map((t) => [t.name, t]));
  // The rows the migrations seeded (intel sync state) are in the backup as they were there.
  if (known.size > 0) {
    // The audit log's table refuses TRUNCATE but from a transaction that says so (0030_d).
    await client.query(`select set_config('rampart.audit_purge', 'on', true)`);
    await client.query(`truncate ${[...known.keys()].map((t) => `public.${quoteIdent(t)}`).join(', ')}`);
  }
  const sequences = new Set(await listSequences(query));
  const tables: RestoreSummary['tables'] = [];
  let setvals = 0;
  for (;;) {
    const line = await reader.nextLine();
    if (line === null)
      throw new BackupFormatError(
        `the file ends without its last line "${LAST_LINE}": it was cut short`,
        reader.line,
      );
    if (line === LAST_LINE) break;
    const at = reader.line;
    const statement = parseStatement(line);
    if (statement === null)
      throw new BackupFormatError(
        `"${cut(line)}" is not a COPY, a sequence value, a setting or a comment`,
        at,
      );
    if (statement.kind === 'copy') {
      const table = known.get(statement.table);
      if (!table)
        throw new BackupFormatError(
          `the backup has rows for table ${statement.table}, which Rampart's schema has not`,
          at,
        );
      if (tables.some((t) => t.name === table.name))
        throw new BackupFormatError(`a second COPY block for table ${table.name}`, at);
      const unknown = statement.columns.find((c) => !table.columns.includes(c));
      if (unknown)
        throw new BackupFormatError(
          `table ${table.name} has no column ${unknown} (or it is a generated one)`,
          at,
        );
      const rows = await loadCopyBlock(client, reader, table, statement.columns, at);
      tables.push({ name: table.name, rows });
      options.onTable?.(table.name, rows);
    } else if (statement.kind === 'setval') {
      if (!sequences.has(statement.sequence))
        throw new BackupFormatError(`Rampart's schema has no sequence ${statement.sequence}`, at);
      await client.query('select pg_catalog.setval($1::regclass, $2::bigint, $3)', [
        `public.${quoteIdent(statement.sequence)}`,
        statement.value,
        statement.isCalled,
      ]);
      setvals++;
    }
  }
  for (;;) {
    const line = await reader.nextLine();
    if (line === null) break;
    if (line.trim() !== '')
      throw new BackupFormatError(`"${cut(line)}" after the last line "${LAST_LINE}"`, reader.line);
  }
  return { tables, sequences: setvals };
}
