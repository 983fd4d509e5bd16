import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/cli/runtime.js';
import { migrations } from '../../src/db/migrations/index.js';
import { EXIT, runCli } from '../../src/main.js';
import { totpCode } from '../../src/modules/mfa/totp.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase, DB_KINDS, type DbKind } from '../helpers/databases.js';

function cliFor(env: Record<string, string>) {
  const run = (...argv: string[]) => runCliCapturing(env, argv);
  const json = async (...argv: string[]) => {
    const r = await run(...argv, '--json');
    // Nothing on stderr but the database the command opened (and, the first time, that its
    // embedded server is being made).
    expect(r.stderr, r.stderr).toMatch(
      /^Using (the embedded database at \/|PostgreSQL at )[^\n]+\n(creating the embedded PostgreSQL [\d.]+ server in \/[^\n]+\n)?$/,
    );
    expect(r.code).toBe(EXIT.ok);
    return JSON.parse(r.stdout);
  };
  return { run, json };
}

describe.each(DB_KINDS)('rampart CLI [%s]', (kind: DbKind) => {
  // RAMPART_INTEL_SYNC=off: `serve` below must not sync from the official sources on the internet.
  const env: Record<string, string> = {
    RAMPART_LOG_LEVEL: 'silent',
    RAMPART_PORT: '0',
    RAMPART_INTEL_SYNC: 'off',
  };
  let drop = async () => {};
  let cli: ReturnType<typeof cliFor>;

  beforeAll(async () => {
    if (kind === 'embedded') {
      env.RAMPART_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-cli-'));
    } else {
      const pgdb = await createPostgresDatabase();
      env.DATABASE_URL = pgdb.url;
      drop = pgdb.drop;
    }
    cli = cliFor(env);
  });
  afterAll(async () => {
    await drop();
    if (env.RAMPART_DATA_DIR) fs.rmSync(env.RAMPART_DATA_DIR, { recursive: true, force: true });
  });

  it('migrate applies migrations once and creates the first organisation', async () => {
    const first = await cli.json('migrate');
    // Every migration, in order (src/db/migrations/index.ts lists them).
    expect(first.Applied).toEqual(Object.keys(migrations));
    expect(first.OrganizationCreated).toBe(true);
    const again = await cli.run('migrate');
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toContain('up to date');
  });

  it('user create puts users in the first organisation unless told otherwise', async () => {
    const orgs = await cli.json('org', 'list');
    expect(orgs).toHaveLength(1);
    const user = await cli.json('user', 'create', '--email', 'ana@example.com', '--role', 'analyst');
    expect(user).toMatchObject({ Email: 'ana@example.com', Role: 'Analyst', OrganizationId: orgs[0].Id });

    const acme = await cli.json('org', 'create', '--name', 'Acme');
    const other = await cli.json(
      'user',
      'create',
      '--email',
      'bo@acme.example',
      '--role',
      'Admin',
      '--org',
      acme.Id,
      '--password',
      'correct horse battery',
    );
    expect(other.OrganizationId).toBe(acme.Id);
  });

  it('org create, rename, deactivate and reactivate run the installation’s organisations; bad input changes nothing', async () => {
    const globex = await cli.json('org', 'create', '--name', 'Globex', '--admin', 'hank@globex.example');
    expect(globex).toMatchObject({ Name: 'Globex', Admin: { Email: 'hank@globex.example' } });
    expect(globex.AdminPassword).toMatch(/^[A-Za-z0-9]{20}$/);
    // A person of another organisation joins with their own password: none is printed.
    const shared = await cli.json('org', 'create', '--name', 'Initech', '--admin', 'ana@example.com');
    expect(shared.AdminPassword).toBeNull();
    const text = await cli.run('org', 'create', '--name', 'Umbrella');
    expect(text.stdout).toContain('It has no Admin yet');

    const renamed = await cli.json('org', 'rename', globex.Id, '--name', 'Globex Europe');
    expect(renamed).toMatchObject({ Id: globex.Id, Name: 'Globex Europe', Active: true, Members: 1 });
    const off = await cli.json('org', 'deactivate', globex.Id);
    expect(off.Active).toBe(false);
    const listed = await cli.run('org', 'list');
    expect(listed.stdout).toMatch(/Globex Europe {2}\(deactivated\) {2}1 member\(s\)/);
    expect((await cli.json('org', 'reactivate', globex.Id)).Active).toBe(true);

    const before = await cli.json('org', 'list');
    const duplicate = await cli.run('org', 'create', '--name', 'globex europe');
    expect(duplicate.code).toBe(EXIT.failed);
    expect(duplicate.stderr).toContain('exists already');
    const empty = await cli.run('org', 'create', '--name', '  ');
    expect(empty.stderr).toContain('1 to 200 characters');
    const badAdmin = await cli.run('org', 'create', '--name', 'Hooli', '--admin', 'nobody');
    expect(badAdmin.stderr).toContain('AdminEmail: is not an email address');
    const badId = await cli.run('org', 'deactivate', 'globex');
    expect(badId.stderr).toContain('must be a UUID');
    const unknown = await cli.run('org', 'rename', '0190a000-0000-7000-8000-000000000000', '--name', 'X');
    expect(unknown.code).toBe(EXIT.failed);
    expect(unknown.stderr).toContain('No organisation');
    expect(await cli.json('org', 'list')).toEqual(before);

    const granted = await cli.json('user', 'installation-admin', 'hank@globex.example');
    expect(granted).toEqual({ Email: 'hank@globex.example', InstallationAdmin: true });
    await cli.json('user', 'installation-admin', 'ana@example.com');
    expect(
      (await cli.json('user', 'installation-admin', 'hank@globex.example', '--revoke')).InstallationAdmin,
    ).toBe(false);
    const last = await cli.run('user', 'installation-admin', 'ana@example.com', '--revoke');
    expect(last.code).toBe(EXIT.failed);
    expect(last.stderr).toContain('without an installation Admin');
    const nobody = await cli.run('user', 'installation-admin', 'nobody@example.com');
    expect(nobody.stderr).toContain('No user with email nobody@example.com');
  });

  it('user create refuses bad input with a clear message and changes nothing', async () => {
    const badRole = await cli.run('user', 'create', '--email', 'x@example.com', '--role', 'root');
    expect(badRole.code).toBe(EXIT.failed);
    expect(badRole.stderr).toContain("Unknown role 'root'; use one of ReadOnly, Analyst, Manager, Admin");
    const badEmail = await cli.run('user', 'create', '--email', 'not-an-email', '--role', 'Analyst');
    expect(badEmail.stderr).toContain('/Email: is not an email address');
    const weak = await cli.run(
      'user',
      'create',
      '--email',
      'w@example.com',
      '--role',
      'Analyst',
      '--password',
      'short',
    );
    expect(weak.stderr).toContain('at least 12 characters');
    const duplicate = await cli.run('user', 'create', '--email', 'ANA@example.com', '--role', 'Admin');
    expect(duplicate.stderr).toContain('already exists');
    const badOrg = await cli.run(
      'user',
      'create',
      '--email',
      'y@example.com',
      '--role',
      'Analyst',
      '--org',
      'acme',
    );
    expect(badOrg.stderr).toContain('--org must be an organisation id');
    const unknownOrg = await cli.run(
      'user',
      'create',
      '--email',
      'y@example.com',
      '--role',
      'Analyst',
      '--org',
      '01900000-0000-7000-8000-000000000000',
      '--json',
    );
    expect(unknownOrg.code).toBe(EXIT.failed);
    // The database it opened, then the error as one JSON line.
    const [opened, error] = unknownOrg.stderr.trimEnd().split('\n');
    expect(opened).toMatch(/^Using /);
    expect(JSON.parse(error!)).toMatchObject({ Status: 404 });
    const missing = await cli.run('user', 'create', '--role', 'Analyst');
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain("required option '--email <email>' not specified");
    // Nothing was created by the failures.
    const ana = await cli.json('apikey', 'list', '--user', 'ana@example.com');
    expect(ana).toEqual([]);
    const y = await cli.run('apikey', 'list', '--user', 'y@example.com');
    expect(y.stderr).toContain('No user with email y@example.com');
  });

  it('apikey create prints exactly AccessKey and SecretKey with --json; list and revoke manage them', async () => {
    const created = await cli.json(
      'apikey',
      'create',
      '--user',
      'ana@example.com',
      '--name',
      'CI',
      '--expires-in-days',
      '30',
    );
    expect(Object.keys(created)).toEqual(['AccessKey', 'SecretKey']);
    expect(created.AccessKey).toMatch(/^[A-Z0-9]{20}$/);
    expect(created.SecretKey).toMatch(/^[A-Za-z0-9]{40}$/);

    const listed = await cli.json('apikey', 'list', '--user', 'ana@example.com');
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      Name: 'CI',
      AccessKey: created.AccessKey,
      Status: 'Active',
      LastUsedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.SecretKey);

    const revoked = await cli.json('apikey', 'revoke', created.AccessKey);
    expect(revoked).toMatchObject({ AccessKey: created.AccessKey, Status: 'Revoked' });
    const text = await cli.run('apikey', 'list', '--user', 'ana@example.com');
    expect(text.stdout).toContain('Revoked');
  });

  it('apikey commands refuse bad input', async () => {
    const days = await cli.run(
      'apikey',
      'create',
      '--user',
      'ana@example.com',
      '--name',
      'x',
      '--expires-in-days',
      'soon',
    );
    expect(days.code).toBe(EXIT.failed);
    expect(days.stderr).toContain('--expires-in-days must be a whole number');
    const tooLong = await cli.run(
      'apikey',
      'create',
      '--user',
      'ana@example.com',
      '--name',
      'x',
      '--expires-in-days',
      '99999',
    );
    expect(tooLong.stderr).toContain('Expiry must be a whole number of days from 1 to 3650');
    const noUser = await cli.run('apikey', 'create', '--user', 'nobody@example.com', '--name', 'x');
    expect(noUser.stderr).toContain('No user with email nobody@example.com');
    const unknown = await cli.run('apikey', 'revoke', 'AAAAAAAAAAAAAAAAAAAA');
    expect(unknown.stderr).toContain('No API key with access key AAAAAAAAAAAAAAAAAAAA');
    const noName = await cli.run('apikey', 'create', '--user', 'ana@example.com');
    expect(noName.code).toBe(EXIT.usage);
  });

  it('demo loads marked sample data and removes it; refuses a bad organisation id', async () => {
    const loaded = await cli.json('demo');
    expect(loaded.Loaded).toMatchObject({ Assets: 17, Tickets: 3 });
    const removed = await cli.json('demo', '--remove');
    expect(removed.Removed).toEqual({ Assets: 17, Tickets: 3 });
    const bad = await cli.run('demo', '--org', 'nope');
    expect(bad.code).toBe(EXIT.failed);
    expect(bad.stderr).toContain('--org must be an organisation id');
  });

  it('serve makes sure an Admin exists, printing a generated password once', async () => {
    const serveOnce = async (extra: Record<string, string> = {}) => {
      let stop: () => Promise<void> = async () => {};
      let stdout = '';
      const code = await runCli(
        ['serve'],
        {
          env: { ...env, ...extra },
          out: {
            stdout: (t) => {
              stdout += t;
            },
            stderr: () => {},
          },
        },
        (s) => {
          stop = s;
        },
      );
      await stop();
      return { code, stdout };
    };
    const first = await serveOnce();
    expect(first.code).toBe(EXIT.ok);
    expect(first.stdout).toMatch(/Admin created: admin@rampart\.local with password [A-Za-z0-9]{20}\n/);
    const second = await serveOnce();
    expect(second.stdout).toContain('Rampart is running at http://localhost:');
    expect(second.stdout).not.toContain('password');
    const configured = await serveOnce({
      RAMPART_ADMIN_EMAIL: 'boss@example.com',
      RAMPART_ADMIN_PASSWORD: 'a sturdy passphrase',
    });
    expect(configured.stdout).toContain(
      'Admin created: boss@example.com (password from RAMPART_ADMIN_PASSWORD)',
    );
    // Three starts of a server, each getting its database ready: slow under load, never a timing.
  }, 180_000);

  it('serve loaded the bundled knowledge base on the first start; intel status says so', async () => {
    const status = await cli.json('intel', 'status');
    const records = Object.fromEntries(
      status.map((f: { Feed: string; Records: number }) => [f.Feed, f.Records]),
    );
    expect(records).toMatchObject({ nvd: 41, cve5: 6, epss: 1444, osv: 21 });
    expect(records.kev).toBeGreaterThanOrEqual(1404);
    const text = await cli.run('intel', 'status');
    expect(text.stdout).toMatch(
      /^kev +\d+ records; data of 2025-08-25( \(\d+ days old\))?; last load .* Completed$/m,
    );
  });

  it('intel load reads files and folders, skips what is no feed, and refuses bad input', async () => {
    const fixtures = path.resolve('test/fixtures/intel');
    const folder = await cli.run('intel', 'load', path.join(fixtures, 'kev'));
    expect(folder.code, folder.stderr).toBe(EXIT.ok);
    expect(folder.stdout).toMatch(
      /known_exploited_vulnerabilities\.json: kev \(2025\.08\.25\): 0 added, 0 updated, 1404 unchanged/,
    );
    expect(folder.stderr).toMatch(/Skipped .*known_exploited_vulnerabilities_schema\.json: not a feed file/);
    const one = await cli.json('intel', 'load', path.join(fixtures, 'nvd', 'CVE-2024-6387.json'));
    expect(one).toMatchObject([{ Feed: 'nvd', State: 'Completed', Added: 0, Updated: 0, Unchanged: 1 }]);

    const missing = await cli.run('intel', 'load', path.join(fixtures, 'nope.json'));
    expect(missing.code).toBe(EXIT.failed);
    expect(missing.stderr).toMatch(/No such file or folder/);
    const badFeed = await cli.run(
      'intel',
      'load',
      '--feed',
      'nvdx',
      path.join(fixtures, 'nvd', 'CVE-2024-6387.json'),
    );
    expect(badFeed.code).toBe(EXIT.failed);
    expect(badFeed.stderr).toMatch(/Unknown feed 'nvdx'; use one of nvd, cve5, kev, epss, osv/);
    const notFeed = path.join(os.tmpdir(), `rampart-not-a-feed-${process.pid}.json`);
    fs.writeFileSync(notFeed, '{"hello": "world"}');
    const unknown = await cli.run('intel', 'load', notFeed);
    fs.rmSync(notFeed);
    expect(unknown.code).toBe(EXIT.failed);
    expect(unknown.stderr).toMatch(/not one of the feeds Rampart reads/);
    const broken = path.join(os.tmpdir(), `rampart-broken-feed-${process.pid}.json`);
    fs.writeFileSync(
      broken,
      fs.readFileSync(path.join(fixtures, 'nvd', 'CVE-2021-41773.json'), 'utf8').slice(0, 3000),
    );
    const cut = await cli.run('intel', 'load', '--feed', 'nvd', broken);
    fs.rmSync(broken);
    expect(cut.code).toBe(EXIT.failed);
    expect(cut.stdout).toMatch(/nvd load failed: .*line \d+, column \d+/);
  });

  // Each step opens the embedded database anew: slow on a busy machine.
  it('user reset-password prints a new password once and ends the sessions; or reads one from stdin', {
    timeout: 300_000,
  }, async () => {
    const email = 'forgetful@example.com';
    await cli.json(
      'user',
      'create',
      '--email',
      email,
      '--role',
      'admin',
      '--password',
      'the first passphrase',
    );
    const signIn = async (password: string) => {
      const rt = await openRuntime({ env, out: { stdout: () => {}, stderr: () => {} } }, 'test');
      try {
        const meta = { ipAddress: null, userAgent: null };
        const user = await rt.services.sessions.checkPassword(email, password, meta);
        return (await rt.services.sessions.startFor(user, meta)).token;
      } finally {
        await rt.close();
      }
    };
    const stillSignedIn = async (token: string) => {
      const rt = await openRuntime({ env, out: { stdout: () => {}, stderr: () => {} } }, 'test');
      try {
        return (await rt.services.sessions.authenticate(token)) !== null;
      } finally {
        await rt.close();
      }
    };
    const before = await signIn('the first passphrase');
    expect(await stillSignedIn(before)).toBe(true);

    const reset = await cli.run('user', 'reset-password', email.toUpperCase());
    expect(reset.code, reset.stderr).toBe(EXIT.ok);
    const generated = /^New password for forgetful@example\.com: (\S{20})$/m.exec(reset.stdout)?.[1];
    expect(generated, reset.stdout).toBeDefined();
    expect(reset.stdout).toContain('shown only now');
    expect(await stillSignedIn(before)).toBe(false);
    const withGenerated = await signIn(generated!);
    await expect(signIn('the first passphrase')).rejects.toThrow(/incorrect/);

    const chosen = await runCliCapturing(
      env,
      ['user', 'reset-password', email, '--password-stdin', '--json'],
      undefined,
      'a passphrase of my own\n',
    );
    expect(chosen.code, chosen.stderr).toBe(EXIT.ok);
    expect(JSON.parse(chosen.stdout)).toEqual({ Email: email, Password: null, SessionsEnded: true });
    expect(chosen.stdout).not.toContain('a passphrase of my own');
    expect(await stillSignedIn(withGenerated)).toBe(false);
    await signIn('a passphrase of my own');
  });

  it('user reset-mfa removes a lost second factor and ends the sessions; refuses an unknown user', {
    timeout: 300_000,
  }, async () => {
    const email = 'phoneless@example.com';
    await cli.json(
      'user',
      'create',
      '--email',
      email,
      '--role',
      'admin',
      '--password',
      'a phone in the river',
    );
    const rt = await openRuntime({ env, out: { stdout: () => {}, stderr: () => {} } }, 'test');
    try {
      const user = (await rt.services.users.findByEmail(email))!;
      const ctx = { organizationId: user.organizationId, actor: { type: 'user' as const, id: user.id } };
      const { secret } = await rt.services.mfa.startEnrolment(ctx, user.id);
      await rt.services.mfa.confirmEnrolment(ctx, user.id, totpCode(secret, rt.services.clock()));
      expect((await rt.services.mfa.status(ctx, user.id)).enabled).toBe(true);
    } finally {
      await rt.close();
    }
    const reset = await cli.run('user', 'reset-mfa', email, '--json');
    expect(reset.code, reset.stderr).toBe(EXIT.ok);
    expect(JSON.parse(reset.stdout)).toEqual({ Email: email, HadFactor: true, SessionsEnded: true });
    const after = await openRuntime({ env, out: { stdout: () => {}, stderr: () => {} } }, 'test');
    try {
      const user = (await after.services.users.findByEmail(email))!;
      const ctx = { organizationId: user.organizationId, actor: { type: 'cli' as const, id: null } };
      expect((await after.services.mfa.status(ctx, user.id)).enabled).toBe(false);
      // Signing in needs the password alone again.
      const signedIn = await after.services.sessions.checkPassword(email, 'a phone in the river', {
        ipAddress: null,
        userAgent: null,
      });
      expect(await after.services.mfa.secondStepFor(signedIn)).toBeNull();
    } finally {
      await after.close();
    }
    const unknown = await cli.run('user', 'reset-mfa', 'nobody@example.com');
    expect(unknown.code).toBe(EXIT.failed);
    expect(unknown.stderr).toContain('No user with email nobody@example.com');
  });

  it('user reset-password refuses an unknown user, an empty or short password, and changes nothing', async () => {
    const unknown = await cli.run('user', 'reset-password', 'nobody@example.com');
    expect(unknown.code).toBe(EXIT.failed);
    expect(unknown.stderr).toContain('No user with email nobody@example.com');
    for (const [stdin, message] of [
      ['', 'The password read from stdin is empty'],
      ['\n', 'The password read from stdin is empty'],
      ['short\n', 'must have at least 12 characters'],
    ] as const) {
      const r = await runCliCapturing(
        env,
        ['user', 'reset-password', 'forgetful@example.com', '--password-stdin'],
        undefined,
        stdin,
      );
      expect(r.code).toBe(EXIT.failed);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
    const missing = await cli.run('user', 'reset-password');
    expect(missing.code).toBe(EXIT.usage);
  });

  it('refuses invalid configuration, naming each variable', async () => {
    const r = await cliFor({ ...env, RAMPART_PORT: 'eighty', RAMPART_THROTTLE_LIMIT: '0' }).run('migrate');
    expect(r.code).toBe(EXIT.config);
    expect(r.stderr).toContain('RAMPART_PORT="eighty" is not a whole number');
    expect(r.stderr).toContain('RAMPART_THROTTLE_LIMIT');
  });
});

describe('rampart CLI while a server holds the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-held-'));
  const env = {
    RAMPART_DATA_DIR: dataDir,
    RAMPART_LOG_LEVEL: 'warn',
    RAMPART_PORT: '0',
    RAMPART_INTEL_SYNC: 'off',
    PATH: process.env.PATH ?? '',
  };
  let server: ChildProcess;
  let url = '';
  let serverErr = '';

  beforeAll(async () => {
    server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stderr?.on('data', (d) => {
      serverErr += d;
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout?.on('data', (d) => {
        out += d;
        const m = /running at (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
    });
  });
  afterAll(() => {
    server?.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('says the database is held, by whom, and what to do', async () => {
    const status = await fetch(`${url}/api/latest/status`);
    expect(status.status).toBe(200);
    const r = await cliFor(env).run('apikey', 'list', '--user', 'admin@rampart.local');
    expect(r.code).toBe(EXIT.locked);
    expect(r.stderr).toContain(`is in use by another Rampart process (pid ${server.pid}, "rampart serve"`);
    expect(r.stderr).toContain('DATABASE_URL');
  });

  it('user reset-password says the server is running and to stop it first', async () => {
    const r = await cliFor(env).run('user', 'reset-password', 'admin@rampart.local');
    expect(r.code).toBe(EXIT.locked);
    expect(r.stderr).toContain(`pid ${server.pid}, "rampart serve"`);
    expect(r.stderr).toContain('Stop the server, then run rampart user reset-password again');
    expect(r.stdout).toBe('');
  });

  it('shuts down gracefully on SIGTERM and releases the database', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited, serverErr).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'rampart.lock'))).toBe(false);
    const r = await cliFor(env).run('apikey', 'list', '--user', 'admin@rampart.local');
    expect(r.code, r.stderr).toBe(EXIT.ok);
  });

  it('after a reset, a start with RAMPART_ADMIN_PASSWORD says it was ignored, and the reset password signs in', async () => {
    const reset = await cliFor(env).run('user', 'reset-password', 'admin@rampart.local');
    expect(reset.code, reset.stderr).toBe(EXIT.ok);
    const password = /^New password for admin@rampart\.local: (\S+)$/m.exec(reset.stdout)![1]!;
    const again = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      env: { ...env, RAMPART_ADMIN_PASSWORD: 'not the one in use' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      let err = '';
      again.stderr?.on('data', (d) => {
        err += d;
      });
      const url2 = await new Promise<string>((resolve, reject) => {
        again.stdout?.on('data', (d) => {
          out += d;
          const m = /running at (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        again.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}${err}`)));
      });
      const said =
        'RAMPART_ADMIN_PASSWORD was ignored: admin@rampart.local already exists and keeps its password. ' +
        'To set a new one, stop the server and run: rampart user reset-password admin@rampart.local';
      expect(err).toContain(said);
      // The log line reaches stdout within LOG_FLUSH_MS.
      for (let i = 0; i < 100 && !out.includes('RAMPART_ADMIN_PASSWORD was ignored'); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const logged = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      expect(logged).toContainEqual(
        expect.objectContaining({ level: 40, msg: expect.stringContaining(said) }),
      );
      const signIn = (pw: string) =>
        fetch(`${url2}/api/latest/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Email: 'admin@rampart.local', Password: pw }),
        }).then((res) => res.status);
      expect(await signIn('not the one in use')).toBe(401);
      expect(await signIn(password)).toBe(200);
    } finally {
      const exited = new Promise((resolve) => again.once('exit', resolve));
      again.kill('SIGTERM');
      await exited;
    }
  });
});
