import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from '../../src/main.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase } from '../helpers/databases.js';

// Issue 13, item 3: `rampart serve` builds one service graph, the runtime's, with the server's
// API key cache (RAMPART_AUTH_CACHE_SECONDS), not the 0 seconds of the other commands. Without
// Redis, a revoke by another process reaches the server only when its cached entry expires.
describe.runIf(process.env.DATABASE_URL)('rampart serve on PostgreSQL without Redis [postgres]', () => {
  const env: Record<string, string> = {
    RAMPART_LOG_LEVEL: 'silent',
    RAMPART_PORT: '0',
    RAMPART_AUTH_CACHE_SECONDS: '3600',
    // Never the official intelligence sources from a test.
    RAMPART_INTEL_SYNC: 'off',
  };
  let drop = async () => {};
  let stop = async () => {};
  let url = '';

  beforeAll(async () => {
    const pgdb = await createPostgresDatabase();
    env.DATABASE_URL = pgdb.url;
    drop = pgdb.drop;
    let stdout = '';
    const code = await runCli(
      ['serve'],
      {
        env,
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
    expect(code).toBe(EXIT.ok);
    url = /running at (http:\/\/\S+)/.exec(stdout)![1]!;
  });
  afterAll(async () => {
    await stop();
    await drop();
  });

  const cli = async (...argv: string[]) => {
    const r = await runCliCapturing(env, [...argv, '--json']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    return JSON.parse(r.stdout);
  };
  const newKey = (name: string) => cli('apikey', 'create', '--user', 'admin@rampart.local', '--name', name);
  const call = (key: { AccessKey: string; SecretKey: string }, method = 'GET', path = '/apikeys') =>
    fetch(`${url}/api/latest${path}`, {
      method,
      headers: { ApiAccessKey: key.AccessKey, ApiSecretKey: key.SecretKey },
    });

  it('drops a key revoked through it at once, and keeps one revoked by another process cached', async () => {
    const a = await newKey('A');
    const b = await newKey('B');
    expect((await call(a)).status).toBe(200);
    const listed = (await (await call(b)).json()) as { Items: { Id: string; AccessKey: string }[] };
    const idOfB = listed.Items.find((k) => k.AccessKey === b.AccessKey)!.Id;

    expect((await call(a, 'DELETE', `/apikeys/${idOfB}`)).status).toBe(200);
    expect((await call(b)).status).toBe(401);

    expect(await cli('apikey', 'revoke', a.AccessKey)).toMatchObject({ Status: 'Revoked' });
    expect((await call(a)).status).toBe(200);
  });
});
