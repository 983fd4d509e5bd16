import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupFormatError, RestoreRefusedError, restoreDatabase } from '../../../src/db/backup/index.js';
import { KNOWN_MIGRATIONS } from '../../../src/db/migrate.js';
import { EXIT } from '../../../src/main.js';
import { VERSION } from '../../../src/version.js';
import { runCliCapturing } from '../../helpers/cli.js';
import { createPostgresDatabase } from '../../helpers/databases.js';
import { chunked, dumpToText, fingerprint, rowsOf } from './helpers.js';

const hasPostgres = Boolean(process.env.DATABASE_URL);
const env = (url: string) => ({ DATABASE_URL: url, RAMPART_LOG_LEVEL: 'silent' });
const CREATED = new Date('2031-02-03T04:05:06.000Z');
// Text that COPY must escape: a tab, line breaks, a backslash, a `\.` line, and non-ASCII.
const AWKWARD = 'Tab\there\nnew line\r\n\\. \\ back slash — ü 🛡';

describe.runIf(hasPostgres)('backup and restore [postgres]', () => {
  const dropped: (() => Promise<void>)[] = [];
  const fresh = async () => {
    const db = await createPostgresDatabase();
    dropped.push(db.drop);
    return db.url;
  };
  let source: string;
  let backup: string;

  beforeAll(async () => {
    source = await fresh();
    const run = async (...argv: string[]) => {
      const r = await runCliCapturing(env(source), argv);
      expect(r.code, r.stderr).toBe(EXIT.ok);
    };
    await run('demo');
    await run('user', 'create', '--email', 'ada@example.com', '--role', 'Admin', '--name', 'Ada');
    await run('apikey', 'create', '--user', 'ada@example.com', '--name', 'ci');
    await rowsOf(source, `update organizations set name = '${AWKWARD.replaceAll("'", "''")}'`);
    // A sequence, as a future serial column would have: Rampart's tables have none today.
    await rowsOf(
      source,
      "create sequence public.backup_test_seq; select nextval('backup_test_seq') from generate_series(1, 41)",
    );
    backup = await dumpToText(source, () => CREATED);
  }, 120_000);
  afterAll(async () => {
    for (const drop of dropped) await drop();
  });

  it('writes the header, every table in foreign-key order, and the sequences', () => {
    const lines = backup.split('\n');
    expect(lines.slice(0, 6)).toEqual([
      '-- Rampart backup',
      '-- Format: 1',
      `-- Rampart version: ${VERSION}`,
      expect.stringMatching(/^-- PostgreSQL version: \d+/),
      '-- Created at: 2031-02-03T04:05:06.000Z',
      `-- Migrations: ${KNOWN_MIGRATIONS.length}`,
    ]);
    expect(lines.slice(6, 6 + KNOWN_MIGRATIONS.length)).toEqual(KNOWN_MIGRATIONS.map((m) => `--   ${m}`));
    const copied = lines.filter((l) => l.startsWith('COPY ')).map((l) => l.split(' ')[1]);
    expect(copied).not.toContain('public.kysely_migration');
    expect(copied).not.toContain('public.sql_functions');
    for (const [child, parent] of [
      ['users', 'organizations'],
      ['findings', 'assets'],
      ['findings', 'vulnerabilities'],
      ['ticket_findings', 'tickets'],
      ['ticket_findings', 'findings'],
    ])
      expect(copied.indexOf(`public.${child}`)).toBeGreaterThan(copied.indexOf(`public.${parent}`));
    // Generated columns are computed again on load, as pg_dump leaves them out too.
    expect(lines.find((l) => l.startsWith('COPY public.findings '))).not.toContain('effective_severity');
    expect(lines).toContain("SELECT pg_catalog.setval('public.backup_test_seq', 41, true);");
    expect(lines.at(-2)).toBe('-- Rampart backup complete');
  });

  it('restores every table to the same rows, and the database goes on working', async () => {
    const target = await fresh();
    await rowsOf(target, 'create sequence public.backup_test_seq');
    const progress: string[] = [];
    const summary = await restoreDatabase({ connectionString: target }, chunked(backup, 1000), {
      onTable: (table, rows) => progress.push(`${table} ${rows}`),
    });
    expect(progress).toEqual(summary.tables.map((t) => `${t.name} ${t.rows}`));
    expect(summary.header.createdAt).toEqual(CREATED);
    expect(summary.tables.find((t) => t.name === 'findings')?.rows).toBeGreaterThan(35);
    // The test's own and the identity sequences of event_outbox.seq and notification_deliveries.seq.
    expect(summary.sequences).toBe(3);
    expect(summary.migratedAfter).toEqual([]);
    const [before, after] = [await fingerprint(source), await fingerprint(target)];
    expect(after).toEqual(before);
    expect(Number(after.findings?.split(' ')[0])).toBeGreaterThan(35);
    expect((await rowsOf<{ name: string }>(target, 'select name from organizations'))[0]?.name).toBe(AWKWARD);
    // A backup of the restored database is the same file.
    expect(await dumpToText(target, () => CREATED)).toBe(backup);
    // The sequence goes on after the backup's value; new rows get new ids; the functions are there.
    expect(await rowsOf(target, "select nextval('backup_test_seq')::int as n")).toEqual([{ n: 42 }]);
    const r = await runCliCapturing(env(target), [
      'user',
      'create',
      '--email',
      'bob@example.com',
      '--role',
      'Analyst',
    ]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const demoAgain = await runCliCapturing(env(target), ['demo', '--json']);
    expect(demoAgain.code, demoAgain.stderr).toBe(EXIT.ok);
  }, 120_000);

  it('refuses a database that already holds Rampart data, and changes nothing', async () => {
    const before = await fingerprint(source);
    const error = await restoreDatabase({ connectionString: source }, chunked(backup, 4096)).catch((e) => e);
    expect(error).toBeInstanceOf(RestoreRefusedError);
    expect(error.message).toMatch(/already holds Rampart data \(1 organisation\)/);
    expect(await fingerprint(source)).toEqual(before);
  });

  it('refuses a database with tables of its own, and leaves them as they were', async () => {
    const target = await fresh();
    await rowsOf(target, "create table public.notes (body text); insert into notes values ('keep me')");
    const error = await restoreDatabase({ connectionString: target }, chunked(backup, 4096)).catch((e) => e);
    expect(error).toBeInstanceOf(RestoreRefusedError);
    expect(error.message).toContain('has tables of its own (notes) and no Rampart schema');
    expect(await rowsOf(target, 'select body from notes')).toEqual([{ body: 'keep me' }]);
    expect(await rowsOf(target, "select to_regclass('kysely_migration') as t")).toEqual([{ t: null }]);
  });

  it('refuses a backup from a newer Rampart before touching the database', async () => {
    const newer = backup
      .replace(`-- Migrations: ${KNOWN_MIGRATIONS.length}`, `-- Migrations: ${KNOWN_MIGRATIONS.length + 1}`)
      .replace(
        `--   ${KNOWN_MIGRATIONS.at(-1)}\n`,
        `--   ${KNOWN_MIGRATIONS.at(-1)}\n--   9999_from_the_future\n`,
      );
    const target = await fresh();
    const error = await restoreDatabase({ connectionString: target }, Readable.from([newer])).catch((e) => e);
    expect(error).toBeInstanceOf(RestoreRefusedError);
    expect(error.message).toContain('newer Rampart');
    expect(error.message).toContain('9999_from_the_future');
    expect(await rowsOf(target, "select to_regclass('kysely_migration') as t")).toEqual([{ t: null }]);
  });

  it('refuses a backup in a newer format', async () => {
    const target = await fresh();
    const newer = backup.replace('-- Format: 1\n', '-- Format: 2\n');
    const error = await restoreDatabase({ connectionString: target }, Readable.from([newer])).catch((e) => e);
    expect(error).toBeInstanceOf(RestoreRefusedError);
    expect(error.message).toContain('The backup is in format 2');
    expect(await rowsOf(target, "select to_regclass('kysely_migration') as t")).toEqual([{ t: null }]);
  });

  it('restores a backup of an older schema and migrates it to the latest', async () => {
    // The backup of a database at the first migrations only, as an older Rampart wrote it.
    const old = await fresh();
    const { Kysely, PostgresDialect } = await import('kysely');
    const pgModule = await import('pg');
    const { migrateTo } = await import('../../../src/db/migrate.js');
    const db = new Kysely({
      dialect: new PostgresDialect({ pool: new pgModule.default.Pool({ connectionString: old }) }),
    });
    await migrateTo(db, '0002_create_vulnerability_model');
    await db.destroy();
    await rowsOf(
      old,
      "insert into organizations (id, name, created_at) values ('0190a0c0-0000-7000-8000-000000000001', 'Old', now())",
    );
    const text = await dumpToText(old);
    expect(text).toContain('-- Migrations: 2\n');
    const target = await fresh();
    const summary = await restoreDatabase({ connectionString: target }, Readable.from([text]));
    expect(summary.migratedAfter).toEqual(KNOWN_MIGRATIONS.slice(2));
    expect(await rowsOf(target, 'select name from organizations')).toEqual([{ name: 'Old' }]);
  });

  describe('bad input: a clear error naming the line, and nothing changed', () => {
    const lineOf = (text: string, prefix: string) =>
      text.split('\n').findIndex((l) => l.startsWith(prefix)) + 1;
    const findingsCopy = () => lineOf(backup, 'COPY public.findings ');
    const cases: [string, () => string, () => RegExp][] = [
      ['an empty file', () => '', () => /the file is empty/],
      ['not a backup', () => 'PGDMP\u0000\u0001binary', () => /^line 1: not a Rampart backup/],
      ['garbage without line breaks', () => 'x'.repeat(200_000), () => /^line 1: not a Rampart backup/],
      [
        'cut inside a COPY block',
        () => backup.slice(0, backup.indexOf('\n', backup.indexOf('COPY public.findings ') + 500)),
        () => /ends inside a COPY block.*cut short/,
      ],
      [
        'cut between blocks',
        () => backup.slice(0, backup.indexOf('COPY public.findings ')),
        () => /ends without its last line "-- Rampart backup complete"/,
      ],
      [
        'a COPY block for an unknown table',
        () => backup.replace('COPY public.findings ', 'COPY public.findingz '),
        () => new RegExp(`^line ${findingsCopy()}: the backup has rows for table findingz`),
      ],
      [
        'a COPY block with an unknown column',
        () => backup.replace(/^(COPY public\.findings \()\w+/m, '$1idx'),
        () => new RegExp(`^line ${findingsCopy()}: table findings has no column idx`),
      ],
      [
        'a statement that is not a COPY',
        () => backup.replace('COPY public.findings ', 'DROP TABLE organizations;\nCOPY public.findings '),
        () => new RegExp(`^line ${findingsCopy()}: "DROP TABLE organizations;" is not a COPY`),
      ],
      [
        'a corrupt row',
        () => {
          const at = backup.indexOf('\n', backup.indexOf('COPY public.findings ')) + 1;
          const rowEnd = backup.indexOf('\n', backup.indexOf('\n', at) + 1);
          // The second row loses its last column.
          return `${backup.slice(0, backup.lastIndexOf('\t', rowEnd))}${backup.slice(rowEnd)}`;
        },
        () =>
          new RegExp(
            `^line ${findingsCopy() + 2}: the rows of findings were refused: missing data for column`,
          ),
      ],
      [
        'a sequence that the schema has not',
        () => backup,
        () =>
          new RegExp(
            `^line ${lineOf(backup, 'SELECT pg_catalog.setval')}: Rampart's schema has no sequence backup_test_seq`,
          ),
      ],
    ];
    it.each(cases)('%s', async (_name, make, message) => {
      const target = await fresh();
      const error = await restoreDatabase({ connectionString: target }, chunked(make(), 4093)).catch(
        (e) => e,
      );
      expect(error, String(error)).toBeInstanceOf(BackupFormatError);
      expect(error.message).toMatch(message());
      expect(await rowsOf(target, "select to_regclass('kysely_migration') as t")).toEqual([{ t: null }]);
    });
  });
});
