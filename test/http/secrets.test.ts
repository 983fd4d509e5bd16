import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED_PATHS } from '../../src/http/logging.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { totpCode } from '../../src/modules/mfa/totp.js';
import {
  authHeaders,
  type ComposedApp,
  composeTestApp,
  signInAs,
  TestClock,
  testConfig,
} from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

/**
 * No secret in logs or the database: a user's whole life with secrets — sign-in (right and
 * wrong), API key creation and use (right and wrong secret), bad requests that carry a password,
 * password change and reset, a second factor (its recovery codes, a sign-in's challenge token;
 * its TOTP secret, which the database keeps, never in the log), sign-out — logged at the most
 * verbose level, and then every line of the log and every column of every table searched for
 * each secret, in clear and in the encodings a careless column would hold (hex, base64).
 */

const PASSWORD = 'first passphrase of the admin';
const NEW_PASSWORD = 'second passphrase of the admin';
const COLLEAGUE_PASSWORD = 'passphrase chosen for a teammate';

/** Every form in which a secret could be stored or written by mistake. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [secret, bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')];
}

/** Every row of every table of the database, as text. */
async function everyRow(tdb: TestDatabase): Promise<{ table: string; row: string }[]> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(
    tdb.database.db,
  );
  const out: { table: string; row: string }[] = [];
  for (const { table_name } of tables.rows) {
    const { rows } = await sql<{
      row: string;
    }>`select to_jsonb(t)::text as row from ${sql.table(table_name)} t`.execute(tdb.database.db);
    for (const r of rows) out.push({ table: table_name, row: r.row });
  }
  return out;
}

describe.each(DB_KINDS)('no secret in logs or the database [%s]', (kind) => {
  let tdb: TestDatabase;
  let rampart: ComposedApp;
  const lines: string[] = [];
  const secrets: Record<string, string> = {};
  // Kept in the database by design (codes are checked against it), never logged.
  const logOnly: Record<string, string> = {};
  const clock = new TestClock();
  const requestIds: string[] = [];

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    // The production logger's options, at the most verbose level.
    const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    rampart = await composeTestApp(tdb.database, {
      config: testConfig(),
      logger,
      clock: clock.fn,
    });
  });
  afterAll(async () => {
    await rampart?.app.close();
    await tdb?.drop();
  });

  it('go through a user’s life with secrets', async () => {
    const { app, services } = rampart;
    const inject = async (options: InjectOptions) => {
      const res = await app.inject(options);
      requestIds.push(String(res.headers['x-request-id']));
      return res;
    };
    const { organization } = await services.organizations.ensureFirst();
    const ctx: ServiceContext = { organizationId: organization.id, actor: { type: 'system', id: null } };
    await services.users.create(ctx, { email: 'keeper@example.com', role: 'Admin', password: PASSWORD });
    secrets.password = PASSWORD;

    // Sign-in: a wrong guess close to the password, a malformed body carrying it, then the right one.
    secrets.wrongGuess = `${PASSWORD}!`;
    const wrong = await inject({
      method: 'POST',
      url: '/api/latest/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'keeper@example.com', Password: secrets.wrongGuess }),
    });
    expect(wrong.statusCode).toBe(401);
    const misspelt = await inject({
      method: 'POST',
      url: '/api/latest/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'keeper@example.com', password: PASSWORD }),
    });
    expect(misspelt.statusCode).toBe(400);
    const browser = await signInAs(app, 'keeper@example.com', PASSWORD);
    secrets.sessionToken = browser.cookie.split('=')[1]!;
    secrets.csrfToken = browser.csrf;

    // An API key made in the browser, used right and wrong.
    const created = await inject({
      method: 'POST',
      url: '/api/latest/apikeys',
      headers: { ...browser.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ Name: 'pipeline' }),
    });
    expect(created.statusCode).toBe(201);
    const key = {
      accessKey: created.json().AccessKey as string,
      secretKey: created.json().SecretKey as string,
    };
    secrets.secretKey = key.secretKey;
    for (const [method, url, body] of [
      ['GET', '/api/integration/authenticationcheck', undefined],
      ['GET', '/api/latest/users', undefined],
      ['POST', '/api/latest/assets', { Kind: 'Host', Name: 'logged-host', IpAddresses: ['10.1.2.3'] }],
      ['GET', '/api/latest/nowhere', undefined],
      ['POST', '/api/latest/assets', { Kind: 'Host', Nmae: 'typo' }],
    ] as const) {
      const res = await inject({
        method,
        url,
        headers: { ...authHeaders(key), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).not.toBe(500);
    }
    const wrongSecret = `${key.secretKey.slice(0, -1)}${key.secretKey.endsWith('a') ? 'b' : 'a'}`;
    secrets.wrongSecret = wrongSecret;
    const refused = await inject({
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      headers: authHeaders({ accessKey: key.accessKey, secretKey: wrongSecret }),
    });
    expect(refused.statusCode).toBe(401);

    // A colleague created with a password, one with a password too short (refused), and a reset.
    secrets.colleaguePassword = COLLEAGUE_PASSWORD;
    const colleague = await inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { ...authHeaders(key), 'content-type': 'application/json' },
      payload: JSON.stringify({
        Email: 'colleague@example.com',
        Role: 'Analyst',
        Password: COLLEAGUE_PASSWORD,
      }),
    });
    expect(colleague.statusCode, colleague.body).toBe(201);
    secrets.tooShort = 'Sh0rt$ecret';
    const short = await inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { ...authHeaders(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'short@example.com', Role: 'Analyst', Password: secrets.tooShort }),
    });
    expect(short.statusCode).toBe(400);
    const reset = await inject({
      method: 'POST',
      url: `/api/latest/users/${colleague.json().Id}/password`,
      headers: { ...authHeaders(key), 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(reset.statusCode).toBe(200);
    secrets.generatedPassword = reset.json().Password;

    // A second factor: set up, a sign-in through its challenge with a recovery code, new recovery
    // codes, then turned off.
    const json = { ...browser.headers, 'content-type': 'application/json' };
    const started = await inject({
      method: 'POST',
      url: '/api/latest/account/mfa/enrolment',
      headers: json,
      payload: '{}',
    });
    expect(started.statusCode).toBe(200);
    logOnly.totpSecret = started.json().Secret;
    const confirmed = await inject({
      method: 'POST',
      url: '/api/latest/account/mfa/enrolment/confirm',
      headers: json,
      payload: JSON.stringify({ Code: totpCode(logOnly.totpSecret!, clock.now) }),
    });
    expect(confirmed.statusCode).toBe(200);
    const codes = confirmed.json().RecoveryCodes as string[];
    secrets.recoveryCode = codes[0]!;
    secrets.otherRecoveryCode = codes[9]!;
    const step = await inject({
      method: 'POST',
      url: '/api/latest/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'keeper@example.com', Password: PASSWORD }),
    });
    expect(step.statusCode).toBe(202);
    secrets.challengeToken = step.json().ChallengeToken;
    const second = await inject({
      method: 'POST',
      url: '/api/latest/session/mfa',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ChallengeToken: secrets.challengeToken, RecoveryCode: secrets.recoveryCode }),
    });
    expect(second.statusCode).toBe(200);
    secrets.mfaSessionToken = String(second.headers['set-cookie']).split(';')[0]!.split('=')[1]!;
    const regenerated = await inject({
      method: 'POST',
      url: '/api/latest/account/mfa/recoverycodes',
      headers: json,
      payload: JSON.stringify({ Password: PASSWORD }),
    });
    expect(regenerated.statusCode).toBe(200);
    secrets.regeneratedCode = regenerated.json().RecoveryCodes[0];
    const off = await inject({
      method: 'POST',
      url: '/api/latest/account/mfa/disable',
      headers: json,
      payload: JSON.stringify({ Password: PASSWORD }),
    });
    expect(off.statusCode).toBe(204);

    // The admin changes their own password, signs in again with it, revokes the key, signs out.
    secrets.newPassword = NEW_PASSWORD;
    const changed = await inject({
      method: 'POST',
      url: '/api/latest/account/password',
      headers: { ...browser.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ CurrentPassword: PASSWORD, NewPassword: NEW_PASSWORD }),
    });
    expect(changed.statusCode).toBe(204);
    const again = await signInAs(app, 'keeper@example.com', NEW_PASSWORD, '127.0.9.2');
    secrets.secondSessionToken = again.cookie.split('=')[1]!;
    secrets.secondCsrfToken = again.csrf;
    const revoked = await inject({
      method: 'DELETE',
      url: `/api/latest/apikeys/${created.json().Id}`,
      headers: again.headers,
    });
    expect(revoked.statusCode).toBe(200);
    const out = await inject({ method: 'DELETE', url: '/api/latest/session', headers: again.headers });
    expect(out.statusCode).toBe(204);
    await services.apiKeys.flushLastUsed();
  });

  it('writes none of them to the log, at any level', () => {
    // Every request made a line: the log was captured, so its silence means something.
    expect(requestIds.length).toBeGreaterThanOrEqual(14);
    for (const id of requestIds)
      expect(
        lines.some((l) => l.includes(`"reqId":"${id}"`)),
        id,
      ).toBe(true);
    const log = lines.join('\n');
    for (const [name, secret] of Object.entries(secrets)) {
      for (const form of encodings(secret)) expect(log.includes(form), `${name} in the log`).toBe(false);
    }
    expect(Object.keys(secrets)).toHaveLength(17);
    for (const [name, secret] of Object.entries(logOnly))
      for (const form of encodings(secret)) expect(log.includes(form), `${name} in the log`).toBe(false);
    expect(Object.keys(logOnly)).toHaveLength(1);
  });

  it('stores none of them in clear, in any column of any table', async () => {
    const rows = await everyRow(tdb);
    // The user's life left rows behind: users, keys, sessions, audit events.
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const found: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      for (const form of encodings(secret)) {
        for (const { table, row } of rows) if (row.includes(form)) found.push(`${name} in ${table}`);
      }
    }
    expect(found).toEqual([]);
  });
});
