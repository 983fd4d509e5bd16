/**
 * Rampart's backup format: pg_dump's plain, data-only format (SQL text that psql loads into a
 * database migrated to the same migrations), with a header that says which migrations those are.
 * The text between COPY blocks is a fixed set of line shapes, so that a restore never runs
 * statements it reads from a file.
 */

/** Bumped when a change makes older Rampart versions unable to read new backups. */
export const FORMAT_VERSION = 1;

export const FIRST_LINE = '-- Rampart backup';
export const LAST_LINE = '-- Rampart backup complete';
/** What follows `\.` … the end of every COPY block. */
export const END_OF_COPY = '\\.';

/**
 * Tables that are the schema's own bookkeeping, not data: the migrations applied (listed in the
 * header instead, and recreated by migrating), Kysely's migration lock, and the hashes of the SQL
 * functions applied to this database (the target applies its own when it migrates; copying them
 * would make it skip functions it never received).
 */
export const BOOKKEEPING_TABLES: ReadonlySet<string> = new Set([
  'kysely_migration',
  'kysely_migration_lock',
  'sql_functions',
]);

/** The settings pg_dump writes before the data; psql applies them, a restore sets its own. */
export const SETTINGS = [
  'SET statement_timeout = 0;',
  'SET lock_timeout = 0;',
  "SET client_encoding = 'UTF8';",
  'SET standard_conforming_strings = on;',
  "SELECT pg_catalog.set_config('search_path', '', false);",
  'SET check_function_bodies = false;',
  'SET client_min_messages = warning;',
] as const;

export interface Header {
  format: number;
  rampartVersion: string;
  serverVersion: string;
  createdAt: Date;
  /** The migrations applied to the database, in the order they were applied. */
  migrations: string[];
}

/** A bad backup file, naming the line where it goes wrong. */
export class BackupFormatError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = 'BackupFormatError';
  }
}

/** The database to back up has no Rampart schema (no migration was ever applied). */
export class NothingToBackUpError extends Error {
  constructor() {
    super('The database has no Rampart schema (no migration applied): nothing to back up');
    this.name = 'NothingToBackUpError';
  }
}

/** A restore that would lose or mix data (the target is not empty; the backup is too new). */
export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

export function headerText(header: Header): string {
  return [
    FIRST_LINE,
    `-- Format: ${header.format}`,
    `-- Rampart version: ${header.rampartVersion}`,
    `-- PostgreSQL version: ${header.serverVersion}`,
    `-- Created at: ${header.createdAt.toISOString()}`,
    `-- Migrations: ${header.migrations.length}`,
    ...header.migrations.map((m) => `--   ${m}`),
    '--',
    '-- Data only, in COPY text format as pg_dump --data-only writes it. Load it with',
    '-- `rampart restore FILE`; or with psql into a database migrated to exactly the migrations above',
    '-- whose tables were then emptied (TRUNCATE): some migrations seed rows, which are below too.',
    '--',
    '',
    ...SETTINGS,
    '',
    '',
  ].join('\n');
}

const HEADER_FIELD = /^-- ([A-Za-z ]+): (.*)$/;
const MIGRATION_LINE = /^-- {3}(\S+)$/;

/**
 * Reads the header from its lines (without line breaks); returns it and how many lines it took.
 * Throws BackupFormatError naming the first line that is not as written by `headerText`.
 */
export function parseHeader(lines: readonly string[]): { header: Header; length: number } {
  if (lines[0] !== FIRST_LINE)
    throw new BackupFormatError(`not a Rampart backup (it does not begin with "${FIRST_LINE}")`, 1);
  const fields = new Map<string, string>();
  let i = 1;
  for (; i < lines.length; i++) {
    const match = HEADER_FIELD.exec(lines[i] ?? '');
    if (!match) break;
    fields.set(match[1] as string, match[2] as string);
    if (match[1] === 'Migrations') {
      i++;
      break;
    }
  }
  const field = (name: string) => {
    const value = fields.get(name);
    if (value === undefined) throw new BackupFormatError(`the header has no "${name}" line`, i + 1);
    return value;
  };
  const format = Number(field('Format'));
  if (!Number.isInteger(format) || format < 1)
    throw new BackupFormatError(`the format "${field('Format')}" is not a number`, 2);
  const count = Number(field('Migrations'));
  if (!Number.isInteger(count) || count < 0)
    throw new BackupFormatError(`the count of migrations "${field('Migrations')}" is not a number`, i);
  const createdAt = new Date(field('Created at'));
  if (Number.isNaN(createdAt.getTime()))
    throw new BackupFormatError(`the time "${field('Created at')}" is not a date`);
  const migrations: string[] = [];
  for (let n = 0; n < count; n++, i++) {
    const match = MIGRATION_LINE.exec(lines[i] ?? '');
    if (!match)
      throw new BackupFormatError(`expected migration ${n + 1} of ${count}, found "${cut(lines[i])}"`, i + 1);
    migrations.push(match[1] as string);
  }
  return {
    header: {
      format,
      rampartVersion: field('Rampart version'),
      serverVersion: field('PostgreSQL version'),
      createdAt,
      migrations,
    },
    length: i,
  };
}

/** A line shortened for an error message. */
export function cut(line: string | undefined): string {
  if (line === undefined) return '(end of file)';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/** An identifier as pg_dump writes it: bare when it is a plain lower-case name, else quoted. */
export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

// The reserved words a Rampart table or column could plausibly be named after.
const RESERVED = new Set([
  'all',
  'and',
  'any',
  'as',
  'asc',
  'check',
  'column',
  'constraint',
  'create',
  'default',
  'desc',
  'distinct',
  'do',
  'else',
  'end',
  'for',
  'foreign',
  'from',
  'grant',
  'group',
  'having',
  'in',
  'limit',
  'not',
  'null',
  'offset',
  'on',
  'only',
  'or',
  'order',
  'primary',
  'references',
  'select',
  'table',
  'then',
  'to',
  'union',
  'unique',
  'user',
  'using',
  'when',
  'where',
  'with',
]);

const IDENT = `(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")`;
const COPY_LINE = new RegExp(String.raw`^COPY public\.(${IDENT}) \((${IDENT}(?:, ${IDENT})*)\) FROM stdin;$`);
const SETVAL_LINE = new RegExp(
  String.raw`^SELECT pg_catalog\.setval\('public\.(${IDENT})', (\d+), (true|false)\);$`,
);
const IDENT_LIST = new RegExp(IDENT, 'g');

function unquote(ident: string): string {
  return ident.startsWith('"') ? ident.slice(1, -1).replaceAll('""', '"') : ident;
}

export function copyLine(table: string, columns: readonly string[]): string {
  return `COPY public.${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) FROM stdin;`;
}

export function setvalLine(sequence: string, value: bigint | string, isCalled: boolean): string {
  // Quoted as pg_dump does: the name inside a string literal, as regclass text.
  return `SELECT pg_catalog.setval('public.${quoteIdent(sequence).replaceAll("'", "''")}', ${value}, ${isCalled});`;
}

export type Statement =
  | { kind: 'copy'; table: string; columns: string[] }
  | { kind: 'setval'; sequence: string; value: string; isCalled: boolean }
  | { kind: 'ignored' };

/** One line between COPY blocks; null when it is none of the shapes a backup holds. */
export function parseStatement(line: string): Statement | null {
  if (line === '' || line.startsWith('--')) return { kind: 'ignored' };
  if ((SETTINGS as readonly string[]).includes(line)) return { kind: 'ignored' };
  const copy = COPY_LINE.exec(line);
  if (copy) {
    const columns = (copy[2] as string).match(IDENT_LIST) ?? [];
    return { kind: 'copy', table: unquote(copy[1] as string), columns: columns.map(unquote) };
  }
  const setval = SETVAL_LINE.exec(line);
  if (setval)
    return {
      kind: 'setval',
      sequence: unquote(setval[1] as string),
      value: setval[2] as string,
      isCalled: setval[3] === 'true',
    };
  return null;
}
