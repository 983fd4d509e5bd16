import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultBackupName } from '../../src/cli/backup.js';
import { EXIT, runCli } from '../../src/main.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase } from '../helpers/databases.js';

describe('defaultBackupName', () => {
  it('is the UTC time of the backup, sorting in time order', () => {
    expect(defaultBackupName(new Date('2031-02-03T04:05:06.789Z'))).toBe(
      'rampart-backup-20310203-040506.sql',
    );
  });
});

describe.runIf(Boolean(process.env.DATABASE_URL))('rampart backup and rampart restore [postgres]', () => {
  const dropped: (() => Promise<void>)[] = [];
  let folder: string;
  let source: Record<string, string>;
  const clock = () => new Date('2031-02-03T04:05:06Z');
  const fresh = async () => {
    const db = await createPostgresDatabase();
    dropped.push(db.drop);
    return { DATABASE_URL: db.url, RAMPART_LOG_LEVEL: 'silent' };
  };
  const run = (env: Record<string, string>, ...argv: string[]) => runCliCapturing(env, argv, clock);

  beforeAll(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-backup-cli-'));
    source = await fresh();
    const demo = await run(source, 'demo');
    expect(demo.code, demo.stderr).toBe(EXIT.ok);
  }, 120_000);
  afterAll(async () => {
    for (const drop of dropped) await drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('backs up to a file and restores it into an empty database', async () => {
    const file = path.join(folder, 'one.sql');
    const backup = await run(source, 'backup', '--output', file, '--json');
    expect(backup.code, backup.stderr).toBe(EXIT.ok);
    const summary = JSON.parse(backup.stdout);
    expect(summary).toMatchObject({ File: file, Tables: expect.any(Number), Rows: expect.any(Number) });
    expect(summary.Rows).toBeGreaterThan(50);
    expect(fs.readFileSync(file, 'utf8')).toMatch(
      /^-- Rampart backup\n[\s\S]*\n-- Rampart backup complete\n$/,
    );
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const target = await fresh();
    const restore = await run(target, 'restore', file);
    expect(restore.code, restore.stderr).toBe(EXIT.ok);
    expect(restore.stdout).toBe(
      `Restored ${summary.Rows} rows of ${summary.Tables} tables from a backup of 2031-02-03T04:05:06.000Z (Rampart 0.1.0)\n`.replace(
        '0.1.0',
        JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')).version,
      ),
    );
    const list = await run(target, 'org', 'list', '--json');
    expect(JSON.parse(list.stdout)).toEqual(JSON.parse((await run(source, 'org', 'list', '--json')).stdout));
  });

  it('writes to stdout with -, the report on stderr; by default to a timestamped file here', async () => {
    const out = await run(source, 'backup', '--output', '-');
    expect(out.code, out.stderr).toBe(EXIT.ok);
    expect(out.stdout.startsWith('-- Rampart backup\n')).toBe(true);
    expect(out.stdout.endsWith('\n-- Rampart backup complete\n')).toBe(true);
    expect(out.stderr).toMatch(/\nBacked up \d+ rows of \d+ tables to stdout\n$/);
    // Through the process's stdout stream where there is one (BatchedOutput's tests: it waits on it).
    const chunks: Buffer[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        setTimeout(callback, 1);
      },
    });
    let printed = '';
    const code = await runCli(['backup', '--output', '-'], {
      env: { ...source },
      clock,
      stdoutStream: slow,
      out: { stdout: (t) => (printed += t), stderr: () => {} },
    });
    expect(code).toBe(EXIT.ok);
    expect(printed).toBe('');
    expect(Buffer.concat(chunks).toString('utf8')).toBe(out.stdout);
    const here = process.cwd();
    process.chdir(folder);
    try {
      const named = await run(source, 'backup');
      expect(named.code, named.stderr).toBe(EXIT.ok);
      expect(fs.existsSync(path.join(folder, 'rampart-backup-20310203-040506.sql'))).toBe(true);
      // Never over an existing file.
      const again = await run(source, 'backup');
      expect(again.code).toBe(EXIT.failed);
      expect(again.stderr).toContain('rampart-backup-20310203-040506.sql already exists');
    } finally {
      process.chdir(here);
    }
  });

  it('refuses bad arguments, bad files and a database that holds data, with its exit code', async () => {
    const file = path.join(folder, 'refused.sql');
    expect((await run(source, 'backup', '--output', file)).code).toBe(EXIT.ok);
    expect((await run(source, 'restore')).code).toBe(EXIT.usage);
    expect((await run(source, 'backup', '--output')).code).toBe(EXIT.usage);
    expect((await run(source, 'backup', '--nope')).code).toBe(EXIT.usage);

    const missing = await run(source, 'restore', path.join(folder, 'missing.sql'));
    expect([missing.code, missing.stderr]).toEqual([EXIT.failed, expect.stringContaining('No such file:')]);

    const target = await fresh();
    const garbage = path.join(folder, 'garbage.sql');
    fs.writeFileSync(garbage, 'select 1;\n');
    const bad = await run(target, 'restore', garbage);
    expect(bad.code).toBe(EXIT.failed);
    expect(bad.stderr).toContain(`error: ${garbage}: line 1: not a Rampart backup`);

    const full = await run(source, 'restore', file);
    expect(full.code).toBe(EXIT.refused);
    expect(full.stderr).toContain('already holds Rampart data');

    // Nothing to back up where no Rampart ever ran.
    const empty = await run(await fresh(), 'backup', '--output', path.join(folder, 'empty.sql'));
    expect(empty.code).toBe(EXIT.noDatabase);
    expect(fs.existsSync(path.join(folder, 'empty.sql'))).toBe(false);
  });
});

describe('rampart backup and restore on the embedded database', () => {
  let folder: string;
  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-backup-embedded-'));
    // Run as root, the embedded server runs as another account, which must pass through.
    fs.chmodSync(folder, 0o755);
  });
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('backs up one data directory and restores into a new one; no data directory to back up is exit 6', async () => {
    const one = { RAMPART_DATA_DIR: path.join(folder, 'one'), RAMPART_LOG_LEVEL: 'silent' };
    const two = { RAMPART_DATA_DIR: path.join(folder, 'two'), RAMPART_LOG_LEVEL: 'silent' };
    const none = await runCliCapturing(one, ['backup', '--output', path.join(folder, 'none.sql')]);
    expect([none.code, none.stderr]).toEqual([
      EXIT.noDatabase,
      expect.stringContaining('no Rampart database at'),
    ]);
    expect(fs.existsSync(one.RAMPART_DATA_DIR)).toBe(false);

    expect((await runCliCapturing(one, ['org', 'create', '--name', 'Embedded'])).code).toBe(EXIT.ok);
    const file = path.join(folder, 'embedded.sql');
    const backup = await runCliCapturing(one, ['backup', '--output', file]);
    expect(backup.code, backup.stderr).toBe(EXIT.ok);
    expect(backup.stdout).toMatch(/^Backed up \d+ rows of \d+ tables to /);
    expect(fs.readFileSync(file, 'utf8').includes('\tEmbedded\t')).toBe(true);

    const restore = await runCliCapturing(two, ['restore', file]);
    expect(restore.code, restore.stderr).toBe(EXIT.ok);
    const orgs = async (env: Record<string, string>) =>
      JSON.parse((await runCliCapturing(env, ['org', 'list', '--json'])).stdout);
    expect(await orgs(two)).toEqual(await orgs(one));
    // Again into the same one: it holds data now.
    expect((await runCliCapturing(two, ['restore', file])).code).toBe(EXIT.refused);
  }, 300_000);
});
