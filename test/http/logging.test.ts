import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  closeLogger,
  createLogger,
  LOG_BATCH_CHARS,
  LOG_FLUSH_MS,
  REDACTED_PATHS,
  redactUrl,
} from '../../src/http/logging.js';
import { authHeaders, type ComposedApp, composeTestApp, testConfig } from '../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe('request logs', () => {
  let tdb: TestDatabase;
  let rampart: ComposedApp;
  const lines: string[] = [];

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const logger = pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    rampart = await composeTestApp(tdb.database, { config: testConfig(), logger });
  });
  afterAll(async () => {
    await rampart?.app.close();
    await tdb?.drop();
  });

  it('write one line per request with method, URL, status and time, and never a secret', async () => {
    const { organization } = await rampart.services.organizations.ensureFirst();
    const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
    const password = 'a long and secret passphrase';
    const user = await rampart.services.users.create(ctx, {
      email: 'logged@example.com',
      role: 'Admin',
      password,
    });
    const { key, secretKey } = await rampart.services.apiKeys.create(ctx, { userId: user.id, name: 'k' });
    lines.length = 0;

    const ok = await rampart.app.inject({
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      headers: authHeaders({ accessKey: key.accessKey, secretKey }),
    });
    expect(ok.statusCode).toBe(200);
    const signIn = await rampart.app.inject({
      method: 'POST',
      url: '/api/latest/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'logged@example.com', Password: password }),
    });
    await rampart.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: {
        'content-type': 'application/json',
        ...authHeaders({ accessKey: key.accessKey, secretKey }),
      },
      payload: JSON.stringify({ Email: 'x@example.com', Role: 'Analyst', Password: 'another secret phrase' }),
    });
    // pino's line for the first request
    const first = JSON.parse(lines[0] ?? '{}');
    expect(first).toMatchObject({
      msg: 'request completed',
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      statusCode: 200,
      reqId: ok.headers['x-request-id'],
    });
    expect(typeof first.ms).toBe('number');
    // The line is written beside pino, not by it: it must be the line pino would write.
    const byPino: string[] = [];
    const reference = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          byPino.push(line);
        },
      },
    );
    reference
      .child({ reqId: first.reqId })
      .info({ method: 'GET', url: first.url, statusCode: 200, ms: first.ms }, 'request completed');
    const expected = JSON.parse(byPino[0]!);
    expect(Object.keys(first)).toEqual(Object.keys(expected));
    expect({ ...first, time: 0 }).toEqual({ ...expected, time: 0 });
    expect(Math.abs(first.time - expected.time)).toBeLessThan(60_000);
    expect(lines).toHaveLength(3);
    const all = lines.join('\n');
    const sessionToken = /rampart_session=([^;]+)/.exec(String(signIn.headers['set-cookie']))?.[1];
    expect(sessionToken).toBeDefined();
    for (const secret of [
      secretKey,
      password,
      'another secret phrase',
      sessionToken!,
      signIn.json().CsrfToken,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('the request line', () => {
  let tdb: TestDatabase;
  let rampart: ComposedApp;
  const lines: string[] = [];

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    const logger = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          lines.push(line);
        },
      },
    );
    rampart = await composeTestApp(tdb.database, { config: testConfig(), logger });
  });
  afterAll(async () => {
    await rampart?.app.close();
    await tdb?.drop();
  });

  it('redacts secrets given in the query string, whatever their case, and keeps the rest', async () => {
    const url =
      '/api/integration/authenticationcheck?ApiAccessKey=AK1&ApiSecretKey=s3cr3t-one&PASSWORD=hunter2hunter2' +
      '&access_token=t0k3n&secretkey=s3cr3t-two&Api%53ecretKey=s3cr3t-three&Page=2&token&x=a%3Db';
    const res = await rampart.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(401);
    const line = JSON.parse(lines.at(-1)!);
    expect(line.url).toBe(
      '/api/integration/authenticationcheck?ApiAccessKey=AK1&ApiSecretKey=[redacted]&PASSWORD=[redacted]' +
        '&access_token=[redacted]&secretkey=[redacted]&Api%53ecretKey=[redacted]&Page=2&token&x=a%3Db',
    );
    for (const secret of ['s3cr3t', 'hunter2', 't0k3n']) expect(lines.at(-1)).not.toContain(secret);
  });

  it('redacts by the name even beside malformed percent-encoding, and leaves URLs without secrets alone', () => {
    expect(redactUrl('/x?a=%E0%A4%A&bad%ZZtoken=1&Api%53ecretKey=v&b=%')).toBe(
      '/x?a=%E0%A4%A&bad%ZZtoken=[redacted]&Api%53ecretKey=[redacted]&b=%',
    );
    for (const url of ['/api/latest/findings', '/x?Search=a%20b&Page=2', '/x?', '/x?token', '/x?&&=secret'])
      expect(redactUrl(url)).toBe(url);
    expect(redactUrl('/x?=1&Password=&password=a=b')).toBe('/x?=1&Password=[redacted]&password=[redacted]');
  });

  it('redacts the authorisation code that an OpenID provider sends to the single sign-on callback', () => {
    expect(redactUrl('/api/latest/auth/oidc/p/callback?code=c0de-value&state=s&iss=http%3A%2F%2Fidp')).toBe(
      '/api/latest/auth/oidc/p/callback?code=[redacted]&state=s&iss=http%3A%2F%2Fidp',
    );
    expect(redactUrl('/x?iss=a&CODE=c0de')).toBe('/x?iss=a&CODE=[redacted]');
    for (const url of ['/x?Codename=a', '/x?zipcode=1', '/x?barcode=2']) expect(redactUrl(url)).toBe(url);
  });

  it('is valid JSON whatever the URL holds', async () => {
    // inject sends the URL as a client would (quotes and non-ASCII percent-encoded); a backslash stays.
    const url = '/api/latest/nope?q=a\\b%22c%C3%A9';
    const res = await rampart.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
    const line = JSON.parse(lines.at(-1)!);
    expect(line).toMatchObject({ url, statusCode: 404, reqId: res.headers['x-request-id'] });
  });

  it('is not written below the info level', async () => {
    rampart.app.log.level = 'warn';
    try {
      const before = lines.length;
      await rampart.app.inject({ method: 'GET', url: '/api/latest/status' });
      expect(lines.length).toBe(before);
    } finally {
      rampart.app.log.level = 'info';
    }
  });
});

describe('the server log', () => {
  it('hands lines over in order, in batches, and the rest on flush', () => {
    const written: string[] = [];
    const logger = createLogger(
      { logLevel: 'info' },
      {
        write(chunk: string) {
          written.push(chunk);
          return true;
        },
        flush() {},
      },
    );
    for (let i = 0; i < 1000; i++) logger.info({ i }, 'line');
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(1000 / 10);
    for (const chunk of written) expect(chunk.length).toBeGreaterThanOrEqual(LOG_BATCH_CHARS);
    logger.flush();
    const numbers = written
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).i);
    expect(numbers).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  it('hands over what it collected when closed, and its timer stops', () => {
    vi.useFakeTimers();
    try {
      const written: string[] = [];
      let flushes = 0;
      const logger = createLogger(
        { logLevel: 'info' },
        {
          write(line: string) {
            written.push(line);
            return true;
          },
          flush() {
            flushes += 1;
          },
        },
      );
      logger.info('last words');
      expect(written).toEqual([]);
      closeLogger(logger);
      expect(written.join('')).toContain('last words');
      expect(flushes).toBe(1);
      logger.info('after close');
      vi.advanceTimersByTime(LOG_FLUSH_MS * 3);
      expect(flushes).toBe(1);
      expect(written.join('')).not.toContain('after close');
      closeLogger(logger);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes a buffered line within LOG_FLUSH_MS on a quiet server, and flushes nothing when nothing waits', () => {
    vi.useFakeTimers();
    try {
      const written: string[] = [];
      let flushes = 0;
      const destination = {
        write(line: string) {
          written.push(line);
          return true;
        },
        flush() {
          flushes += 1;
        },
      };
      const logger = createLogger({ logLevel: 'info' }, destination);
      vi.advanceTimersByTime(LOG_FLUSH_MS * 3);
      expect(flushes).toBe(0);
      logger.warn('knowledge base loaded');
      vi.advanceTimersByTime(LOG_FLUSH_MS);
      expect(written.join('')).toContain('knowledge base loaded');
      expect(flushes).toBe(1);
      vi.advanceTimersByTime(LOG_FLUSH_MS * 3);
      expect(flushes).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
