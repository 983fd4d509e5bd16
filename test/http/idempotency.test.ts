import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_CATALOGUE } from '../../src/jobs/catalogue.js';
import type { Job } from '../../src/jobs/types.js';
import {
  IN_FLIGHT_LEASE_MINUTES,
  KEY_RETENTION_HOURS,
  MAX_KEPT_BODY_BYTES,
} from '../../src/modules/idempotency/service.js';
import type { Organization } from '../../src/modules/organizations/service.js';
import { AppError } from '../../src/problems/app-error.js';
import {
  authHeaders,
  type Browser,
  buildTestApp,
  type Credentials,
  signInAs,
  type TestApp,
  TestClock,
} from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { expectProblem } from '../helpers/sweep.js';
import { nessusReport } from '../modules/imports/nessus-report.js';

/**
 * Idempotency-Key (docs/idempotency.md) through the real HTTP stack: replays, a key used for
 * another request, malformed keys, keys in flight and truly concurrent requests on a listening
 * server, server errors, expiry by the app clock and the purge, keys kept apart per principal and
 * organisation, uploads streamed to disk, answers that show a secret, the scan node protocol.
 */
describe.each(DB_KINDS)('Idempotency-Key [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const clock = new TestClock();
  let analyst: Credentials;
  let secondAnalyst: Credentials;
  let other: Organization;
  let outsider: Credentials;
  let port = 0;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { clock });
    analyst = await t.userWithKey('Analyst');
    secondAnalyst = await t.userWithKey('Analyst');
    other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Admin', other);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  let n = 0;
  const fresh = (what: string) => {
    n += 1;
    return `${what} ${n}`;
  };
  const db = () => tdb.database.db;

  const post = (
    who: Credentials | Browser,
    url: string,
    body: unknown,
    key?: string | string[],
    channel = 'latest',
  ): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: `/api/${channel}${url}`,
      headers: {
        ...('headers' in who ? who.headers : authHeaders(who)),
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const tickets = async (title: string, organizationId = t.org.id) =>
    (
      await db()
        .selectFrom('tickets')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('title', '=', title)
        .execute()
    ).length;

  const slot = (key: string) =>
    db().selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();

  describe('a retry', () => {
    it('is answered with the first answer, marked Idempotent-Replayed, and creates nothing more', async () => {
      const title = fresh('replayed ticket');
      const key = randomUUID();
      const first = await post(analyst, '/tickets', { Title: title }, key);
      expect(first.statusCode, first.body).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      for (let i = 0; i < 2; i++) {
        const again = await post(analyst, '/tickets', { Title: title }, key);
        expect(again.statusCode).toBe(201);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.headers['content-type']).toBe(first.headers['content-type']);
        expect(again.body).toBe(first.body);
        // The retry's own request id, not the first's.
        expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
      }
      expect(await tickets(title)).toBe(1);
      // Without a key the same request acts each time: what the key prevents.
      expect((await post(analyst, '/tickets', { Title: title })).statusCode).toBe(201);
      expect(await tickets(title)).toBe(2);
    });

    it('gets the first answer’s Location again', async () => {
      const key = randomUUID();
      const body = { Name: fresh('definition'), Kind: 'Executive', Format: 'Csv' };
      const first = await post(analyst, '/reportdefinitions', body, key);
      expect(first.statusCode, first.body).toBe(201);
      expect(first.headers.location).toBe(`/api/latest/reportdefinitions/${first.json().Id}`);
      const again = await post(analyst, '/reportdefinitions', body, key);
      expect(again.statusCode).toBe(201);
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      const saved = await db()
        .selectFrom('report_definitions')
        .select('id')
        .where('name', '=', body.Name)
        .execute();
      expect(saved).toHaveLength(1);
    });

    it('is answered so in the integration channel too, where the original’s clients call', async () => {
      const key = randomUUID();
      const name = fresh('integration scan');
      // The original's body for a discovery scan, whose answer is the new scan's id as a string.
      const body = { Name: name, ScanTargets: [{ Range: '198.18.0.0/28' }] };
      const manager = await t.userWithKey('Manager');
      const allowed = await post(t.admin, '/allowedtargets', { Kind: 'Allowed', Target: '198.18.0.0/24' });
      expect(allowed.statusCode, allowed.body).toBe(201);
      const first = await post(manager, '/discoveryscans', body, key, 'integration');
      expect(first.statusCode, first.body).toBeLessThan(300);
      const again = await post(manager, '/discoveryscans', body, key, 'integration');
      expect(again.statusCode).toBe(first.statusCode);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      const scans = await db()
        .selectFrom('discovery_scans')
        .select('id')
        .where('organization_id', '=', t.org.id)
        .where('name', '=', name)
        .execute();
      expect(scans).toHaveLength(1);
    });

    it('gets a kept client error again; a request refused by validation takes no key', async () => {
      const email = `${fresh('taken').replace(' ', '-')}@example.com`;
      expect((await post(t.admin, '/users', { Email: email, Role: 'ReadOnly' })).statusCode).toBe(201);
      const key = randomUUID();
      const conflict = await post(t.admin, '/users', { Email: email, Role: 'ReadOnly' }, key);
      expectProblem(conflict, 409, 'conflict', 'an email in use');
      const again = await post(t.admin, '/users', { Email: email, Role: 'ReadOnly' }, key);
      expectProblem(again, 409, 'conflict', 'the same again');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(conflict.body);

      // Refused before it was carried out: the key is still free for the corrected request.
      const title = fresh('corrected');
      const invalidKey = randomUUID();
      const invalid = await post(analyst, '/tickets', { Titel: title }, invalidKey);
      expectProblem(invalid, 400, 'validation-failed', 'a mis-spelt property');
      expect(await slot(invalidKey)).toBeUndefined();
      const corrected = await post(analyst, '/tickets', { Title: title }, invalidKey);
      expect(corrected.statusCode, corrected.body).toBe(201);
      expect(corrected.headers['idempotent-replayed']).toBeUndefined();
      expect(await tickets(title)).toBe(1);
    });
  });

  describe('the same key with another request', () => {
    it('is a 422 problem, in other bytes, on another route or in the other channel, and does nothing', async () => {
      const title = fresh('first use');
      const key = randomUUID();
      const first = await post(analyst, '/tickets', { Title: title }, key);
      expect(first.statusCode).toBe(201);

      const otherTitle = fresh('second use');
      const other422 = await post(analyst, '/tickets', { Title: otherTitle }, key);
      expectProblem(other422, 422, 'idempotency-key-reused', 'another body');
      expect(other422.json().title).toBe('Idempotency-Key is already used with a different payload');
      expect(other422.json().detail).toMatch(/^Idempotency-Key is already used with a different payload: /);
      expect(await tickets(otherTitle)).toBe(0);

      // The same JSON in other bytes is another body: the fingerprint is of the bytes sent.
      const spaced = await post(analyst, '/tickets', `{ "Title": ${JSON.stringify(title)} }`, key);
      expectProblem(spaced, 422, 'idempotency-key-reused', 'the same JSON spaced out');

      const asset = await post(
        analyst,
        '/assets',
        { Kind: 'Host', Name: fresh('h'), IpAddresses: ['10.9.0.1'] },
        key,
      );
      expectProblem(asset, 422, 'idempotency-key-reused', 'another route');
      expect(asset.json().detail).toContain('it was first sent with POST /api/latest/tickets');

      const integration = await post(analyst, '/tickets', { Title: title }, key, 'integration');
      expectProblem(integration, 422, 'idempotency-key-reused', 'the other channel');
      expect(await tickets(title)).toBe(1);

      // The key still answers its own request.
      const again = await post(analyst, '/tickets', { Title: title }, key);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
    });
  });

  describe('a malformed key', () => {
    it('is a 400 problem that says what is wrong, and nothing is done', async () => {
      const cases: [string, RegExp][] = [
        ['', /is empty/],
        ['""', /is empty/],
        ['k'.repeat(256), /256 characters long, more than 255/],
        [`"${'k'.repeat(256)}"`, /256 characters long, more than 255/],
        ['tab\there', /not printable ASCII/],
        ['caf\u00e9', /not printable ASCII/],
        ['"unclosed', /not closed/],
        ['"a"b"', /not closed/],
        ['"bad \\escape"', /escapes neither/],
        ['has"quote', /cannot hold " or \\/],
      ];
      for (const [key, detail] of cases) {
        const title = fresh('malformed');
        const res = await post(analyst, '/tickets', { Title: title }, key);
        expectProblem(res, 400, 'idempotency-key-invalid', JSON.stringify(key));
        expect(res.json().detail, JSON.stringify(key)).toMatch(detail);
        expect(res.json().detail).toContain('1 to 255 printable ASCII characters');
        expect(await tickets(title), JSON.stringify(key)).toBe(0);
      }
    });

    it('is refused on a listening server when the header is sent twice', async () => {
      const title = fresh('twice');
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/latest/tickets',
            headers: {
              ...authHeaders(analyst),
              'content-type': 'application/json',
              'idempotency-key': ['first', 'second'],
            },
          },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ Title: title }));
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).detail).toContain('sent more than once');
      expect(await tickets(title)).toBe(0);
    });

    it('takes 255 characters, a quoted string with escapes, and "abc" as the same key as abc', async () => {
      const long = 'k'.repeat(255);
      expect((await post(analyst, '/tickets', { Title: fresh('long key') }, long)).statusCode).toBe(201);
      expect((await slot(long))?.key).toBe(long);

      const escaped = await post(analyst, '/tickets', { Title: fresh('escaped') }, '"say \\"hi\\" \\\\ bye"');
      expect(escaped.statusCode).toBe(201);
      expect(await slot('say "hi" \\ bye')).toBeDefined();

      const bare = `quoted-${randomUUID()}`;
      const title = fresh('quoted');
      const quoted = await post(analyst, '/tickets', { Title: title }, `"${bare}"`);
      expect(quoted.statusCode).toBe(201);
      const again = await post(analyst, '/tickets', { Title: title }, bare);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(quoted.body);
      expect(await tickets(title)).toBe(1);
    });
  });

  describe('a key whose first request is still being processed', () => {
    const base = () => `http://127.0.0.1:${port}`;

    it('runs exactly one of many truly concurrent requests; the others get 409 or its answer', async () => {
      for (let round = 0; round < 3; round++) {
        const title = fresh('concurrent');
        const key = randomUUID();
        const send = () =>
          fetch(`${base()}/api/latest/tickets`, {
            method: 'POST',
            headers: { ...authHeaders(analyst), 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify({ Title: title }),
          }).then(async (r) => ({
            status: r.status,
            replayed: r.headers.get('idempotent-replayed'),
            retryAfter: r.headers.get('retry-after'),
            body: await r.text(),
          }));
        const answers = await Promise.all(Array.from({ length: 12 }, send));
        const acted = answers.filter((a) => a.status === 201 && a.replayed === null);
        expect(acted, JSON.stringify(answers.map((a) => a.status))).toHaveLength(1);
        for (const a of answers) {
          if (a.status === 201) expect(a.body).toBe(acted[0]!.body);
          else {
            expect(a.status, a.body).toBe(409);
            expect(JSON.parse(a.body).type).toMatch(/\/problems\/idempotency-key-in-use$/);
            expect(a.retryAfter).toBe('1');
          }
        }
        expect(await tickets(title)).toBe(1);
        const after = await send();
        expect(after).toMatchObject({ status: 201, replayed: 'true', body: acted[0]!.body });
      }
    });

    it('answers 409 to a retry while the first upload is still being sent, then its answer', async () => {
      const key = randomUUID();
      const report = nessusReport([
        { ip: '10.77.0.1', items: [{ plugin: '990101', name: 'Slow upload finding', severity: 2 }] },
      ]);
      const importsBefore = await db()
        .selectFrom('imports')
        .select('id')
        .where('organization_id', '=', t.org.id)
        .execute();
      const headers = {
        ...authHeaders(analyst),
        'content-type': 'application/xml',
        'idempotency-key': key,
      };
      // The first upload sends part of its report, then waits.
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/latest/imports',
        headers,
      });
      const firstAnswer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        req.on('response', (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
      });
      req.write(report.slice(0, 200));
      // It holds the key as soon as its headers are in (its body is read by the route).
      for (let i = 0; i < 200 && !(await slot(key)); i++) await new Promise((r) => setTimeout(r, 10));
      expect((await slot(key))?.state).toBe('InFlight');

      const retry = await fetch(`http://127.0.0.1:${port}/api/latest/imports`, {
        method: 'POST',
        headers,
        body: report,
      });
      expect(retry.status).toBe(409);
      expect(((await retry.json()) as { type: string }).type).toMatch(/\/problems\/idempotency-key-in-use$/);

      req.end(report.slice(200));
      const first = await firstAnswer;
      expect(first.status, first.body).toBe(202);
      const replay = await fetch(`http://127.0.0.1:${port}/api/latest/imports`, {
        method: 'POST',
        headers,
        body: report,
      });
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(first.body);
      const importsAfter = await db()
        .selectFrom('imports')
        .select('id')
        .where('organization_id', '=', t.org.id)
        .execute();
      expect(importsAfter.length - importsBefore.length).toBe(1);
    });

    it('is taken over once its lease has run out (its process died), and acts then', async () => {
      const title = fresh('abandoned');
      const key = randomUUID();
      // A request on another instance holds the key, and that instance dies.
      const held = await t.services.idempotency.claim({
        organizationId: t.org.id,
        principalKind: 'apikey',
        principalId: analyst.apiKeyId,
        key,
        method: 'POST',
        route: '/api/latest/tickets',
        fingerprint: 'f'.repeat(64),
      });
      expect(held.outcome).toBe('held');
      expectProblem(
        await post(analyst, '/tickets', { Title: title }, key),
        409,
        'idempotency-key-in-use',
        'held',
      );
      clock.now = new Date(clock.now.getTime() + (IN_FLIGHT_LEASE_MINUTES + 1) * 60_000);
      const taken = await post(analyst, '/tickets', { Title: title }, key);
      expect(taken.statusCode, taken.body).toBe(201);
      expect(taken.headers['idempotent-replayed']).toBeUndefined();
      expect(await tickets(title)).toBe(1);
      expect((await post(analyst, '/tickets', { Title: title }, key)).headers['idempotent-replayed']).toBe(
        'true',
      );
    });
  });

  describe('an answer that is not kept', () => {
    it('a server error frees the key, so that the retry is carried out', async () => {
      const title = fresh('after a failure');
      const key = randomUUID();
      // A real failure of the database under the request: its table is away for a moment.
      await sql`alter table tickets rename to tickets_away`.execute(db());
      let failed: LightMyRequestResponse | undefined;
      try {
        failed = await post(analyst, '/tickets', { Title: title }, key);
      } finally {
        await sql`alter table tickets_away rename to tickets`.execute(db());
      }
      expectProblem(failed!, 500, 'internal', 'the table is away');
      expect(await slot(key)).toBeUndefined();
      const retry = await post(analyst, '/tickets', { Title: title }, key);
      expect(retry.statusCode, retry.body).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await tickets(title)).toBe(1);
    });

    it('an answer that shows a secret is kept without its body: a retry gets 410, not the secret', async () => {
      const key = randomUUID();
      const count = async () =>
        (
          await db()
            .selectFrom('scan_node_enrolments')
            .select('id')
            .where('organization_id', '=', t.org.id)
            .execute()
        ).length;
      const before = await count();
      const first = await post(t.admin, '/scannodes/enrolments', {}, key);
      expect(first.statusCode, first.body).toBe(201);
      const token = first.json().Token as string;
      const again = await post(t.admin, '/scannodes/enrolments', {}, key);
      expectProblem(again, 410, 'idempotency-answer-gone', 'a secret');
      expect(again.json().firstStatus).toBe(201);
      expect(again.json().detail).toContain('it showed a secret once');
      expect(again.body).not.toContain(token);
      expect(await count()).toBe(before + 1);
      const kept = await slot(key);
      expect(kept).toMatchObject({ state: 'Completed', status: 201, body: null, withheld: 'secret' });
      expect(JSON.stringify(kept)).not.toContain(token);
      // Another body with that key is still another request.
      expectProblem(
        await post(t.admin, '/scannodes/enrolments', { ExpiresInHours: 2 }, key),
        422,
        'idempotency-key-reused',
        'another body',
      );
    });

    it(`an answer above ${MAX_KEPT_BODY_BYTES} bytes is kept without its body: a retry gets 410`, async () => {
      const service = t.services.idempotency;
      const request = {
        organizationId: t.org.id,
        principalKind: 'apikey' as const,
        principalId: analyst.apiKeyId,
        key: randomUUID(),
        method: 'POST',
        route: '/api/latest/findings/bulk/state',
        fingerprint: 'a'.repeat(64),
      };
      const held = await service.claim(request);
      if (held.outcome !== 'held') throw new Error(held.outcome);
      const big = Buffer.alloc(MAX_KEPT_BODY_BYTES + 1, 0x20);
      const headers = { 'content-type': 'application/json', location: '/api/latest/things/1' };
      expect(await service.finish(request, held.owner, { status: 200, headers, body: big })).toBe('withheld');
      const error = await service.claim(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).problem.slug).toBe('idempotency-answer-gone');
      expect((error as AppError).detail).toContain(`larger than the ${MAX_KEPT_BODY_BYTES} bytes`);
      expect((error as AppError).headers).toEqual({ location: '/api/latest/things/1' });
      // One byte less is kept, body and all.
      const fits = { ...request, key: randomUUID() };
      const claim = await service.claim(fits);
      if (claim.outcome !== 'held') throw new Error(claim.outcome);
      const body = Buffer.alloc(MAX_KEPT_BODY_BYTES, 0x20);
      expect(await service.finish(fits, claim.owner, { status: 200, headers, body })).toBe('kept');
      const replay = await service.claim(fits);
      expect(replay.outcome === 'replay' && replay.answer.body?.length).toBe(MAX_KEPT_BODY_BYTES);
    });
  });

  describe('keys of different principals', () => {
    it('are apart: another API key, a session, another organisation each get a slot of their own', async () => {
      const title = fresh('shared key value');
      const key = `shared-${randomUUID()}`;
      const email = `${fresh('session').replace(' ', '-')}@example.com`;
      const password = 'a password of the session user';
      const user = await t.services.users.create(
        { organizationId: t.org.id, actor: { type: 'system', id: null } },
        { email, role: 'Analyst', password },
      );
      const browser = await signInAs(t.app, email, password);
      const { key: ownKey, secretKey } = await t.services.apiKeys.create(
        { organizationId: t.org.id, actor: { type: 'system', id: null } },
        { userId: user.id, name: 'own key' },
      );
      const sameUserByKey = {
        accessKey: ownKey.accessKey,
        secretKey,
        userId: user.id,
        apiKeyId: ownKey.id,
      };
      const answers: LightMyRequestResponse[] = [];
      for (const who of [analyst, secondAnalyst, browser, sameUserByKey, outsider]) {
        const res = await post(who, '/tickets', { Title: title }, key);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        answers.push(res);
      }
      expect(new Set(answers.map((a) => a.json().Id)).size).toBe(5);
      expect(await tickets(title)).toBe(4);
      expect(await tickets(title, other.id)).toBe(1);
      // Each gets its own answer again, never another's.
      for (const [i, who] of [analyst, secondAnalyst, browser, sameUserByKey, outsider].entries()) {
        const again = await post(who, '/tickets', { Title: title }, key);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.json().Id).toBe(answers[i]!.json().Id);
      }
      const slots = await db()
        .selectFrom('idempotency_keys')
        .select(['organization_id', 'principal_kind', 'principal_id'])
        .where('key', '=', key)
        .execute();
      expect(slots).toHaveLength(5);
      expect(slots.filter((s) => s.organization_id === other.id)).toEqual([
        { organization_id: other.id, principal_kind: 'apikey', principal_id: outsider.apiKeyId },
      ]);
      expect(slots.filter((s) => s.principal_kind === 'user')).toEqual([
        { organization_id: t.org.id, principal_kind: 'user', principal_id: user.id },
      ]);
    });

    it('a scan node’s calls take keys of its own', async () => {
      const enrolment = await post(t.admin, '/scannodes/enrolments', {});
      const enrolled = await t.app.inject({
        method: 'POST',
        url: '/api/latest/scannodes/enrol',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ Token: enrolment.json().Token, Name: fresh('node') }),
      });
      expect(enrolled.statusCode, enrolled.body).toBe(201);
      const key = randomUUID();
      const heartbeat = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/latest/scannodes/heartbeat',
          headers: {
            authorization: `Bearer ${enrolled.json().NodeKey}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          payload: '{}',
        });
      const first = await heartbeat();
      expect(first.statusCode, first.body).toBe(200);
      const again = await heartbeat();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(await slot(key)).toMatchObject({ principal_kind: 'node', principal_id: enrolled.json().NodeId });
    });
  });

  describe('uploads read as a stream', () => {
    const upload = (payload: string, key: string, contentType = 'application/xml') =>
      t.app.inject({
        method: 'POST',
        url: '/api/latest/imports',
        headers: { ...authHeaders(analyst), 'content-type': contentType, 'idempotency-key': key },
        payload,
      });
    const form = (boundary: string, fileName: string, content: string) =>
      [
        `--${boundary}`,
        `Content-Disposition: form-data; name="file"; filename="${fileName}"`,
        'Content-Type: application/xml',
        '',
        content,
        `--${boundary}--`,
        '',
      ].join('\r\n');
    const report = (ip: string) =>
      nessusReport([{ ip, items: [{ plugin: '990102', name: fresh('streamed finding'), severity: 2 }] }]);

    it('a retry of the same report gets the first Import; other bytes with the key a 422', async () => {
      const key = randomUUID();
      const body = report('10.78.0.1');
      const count = async () =>
        (await db().selectFrom('imports').select('id').where('organization_id', '=', t.org.id).execute())
          .length;
      const before = await count();
      const first = await upload(body, key);
      expect(first.statusCode, first.body).toBe(202);
      const again = await upload(body, key);
      expect(again.statusCode).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.body).toBe(first.body);
      expectProblem(await upload(`${body}\n`, key), 422, 'idempotency-key-reused', 'one more byte');
      expect(await count()).toBe(before + 1);
    });

    it('a form sent again with another boundary is the same request; another file name is not', async () => {
      const key = randomUUID();
      const content = report('10.78.0.2');
      const first = await upload(
        form('first-boundary', 'weekly.nessus', content),
        key,
        'multipart/form-data; boundary=first-boundary',
      );
      expect(first.statusCode, first.body).toBe(202);
      const again = await upload(
        form('another-boundary', 'weekly.nessus', content),
        key,
        'multipart/form-data; boundary=another-boundary',
      );
      expect(again.statusCode).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().Id).toBe(first.json().Id);
      expectProblem(
        await upload(form('b', 'monthly.nessus', content), key, 'multipart/form-data; boundary=b'),
        422,
        'idempotency-key-reused',
        'another file name',
      );
    });

    it('an upload refused before its body was read frees the key', async () => {
      const key = randomUUID();
      const empty = await upload('--b--\r\n', key, 'multipart/form-data; boundary=b');
      expectProblem(empty, 400, 'validation-failed', 'a form without a file');
      expect(await slot(key)).toBeUndefined();
      const real = await upload(report('10.78.0.3'), key);
      expect(real.statusCode, real.body).toBe(202);
      expect(real.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('the OpenAPI documents', () => {
    type Operation = {
      parameters?: { in: string; name: string; description?: string; required?: boolean }[];
      responses: Record<
        string,
        { description: string; content?: Record<string, { example?: { type?: string } }> }
      >;
    };
    const operation = async (channel: string, path: string): Promise<Operation> => {
      const res = await t.app.inject({ url: `/apidoc/${channel}/documentation.json` });
      return res.json().paths[path].post as Operation;
    };
    const header = (op: Operation) =>
      op.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');

    it('document the header and its answers on the POSTs that take it, in both channels', async () => {
      for (const channel of ['latest', 'integration']) {
        const tickets = await operation(channel, `/api/${channel}/tickets`);
        expect(header(tickets), channel).toBeDefined();
        expect(header(tickets)?.required ?? false).toBe(false);
        expect(header(tickets)?.description).toContain('Idempotent-Replayed: true');
        expect(tickets.responses['409']?.content?.['application/problem+json']?.example?.type).toMatch(
          /idempotency-key-in-use$/,
        );
        expect(tickets.responses['422']?.description).toContain('already used with a different payload');
        expect(tickets.responses['400']?.description).toContain('Idempotency-Key');
        const enrolments = await operation(channel, `/api/${channel}/scannodes/enrolments`);
        expect(enrolments.responses['410']?.description).toContain('shows a secret once');
        expect(header(await operation(channel, `/api/${channel}/imports`))).toBeDefined();
        // Not on a POST that changes nothing, nor on an anonymous one.
        expect(header(await operation(channel, `/api/${channel}/allowedtargets/check`))).toBeUndefined();
        expect(header(await operation(channel, `/api/${channel}/scannodes/enrol`))).toBeUndefined();
      }
      expect(header(await operation('latest', '/api/latest/session'))).toBeUndefined();
    });
  });

  // Last: these move the suite's clock by days.
  describe('expiry', () => {
    it(`forgets a key ${KEY_RETENTION_HOURS} hours after its first request, by the app clock`, async () => {
      const title = fresh('expiring');
      const key = randomUUID();
      const first = await post(analyst, '/tickets', { Title: title }, key);
      expect(first.statusCode).toBe(201);
      clock.now = new Date(clock.now.getTime() + KEY_RETENTION_HOURS * 3_600_000 - 60_000);
      const late = await post(analyst, '/tickets', { Title: title }, key);
      expect(late.headers['idempotent-replayed']).toBe('true');
      expect(late.body).toBe(first.body);
      clock.now = new Date(clock.now.getTime() + 2 * 60_000);
      // Expired: a new key, whatever the request.
      const anew = await post(analyst, '/tickets', { Title: fresh('after expiry') }, key);
      expect(anew.statusCode, anew.body).toBe(201);
      expect(anew.headers['idempotent-replayed']).toBeUndefined();
      expect(anew.json().Id).not.toBe(first.json().Id);
    });

    it('the idempotency-purge job deletes expired keys in every organisation, and no others', async () => {
      const purge = () =>
        JOB_CATALOGUE['idempotency-purge'].handle(
          t.services,
          null,
          { id: 'test' } as Job,
          new AbortController().signal,
        );
      const oldKey = randomUUID();
      const otherOldKey = randomUUID();
      expect((await post(analyst, '/tickets', { Title: fresh('old') }, oldKey)).statusCode).toBe(201);
      expect((await post(outsider, '/tickets', { Title: fresh('old') }, otherOldKey)).statusCode).toBe(201);
      clock.now = new Date(clock.now.getTime() + (KEY_RETENTION_HOURS + 1) * 3_600_000);
      const newKey = randomUUID();
      expect((await post(analyst, '/tickets', { Title: fresh('new') }, newKey)).statusCode).toBe(201);
      await purge();
      expect(await slot(oldKey)).toBeUndefined();
      expect(await slot(otherOldKey)).toBeUndefined();
      expect(await slot(newKey)).toBeDefined();
      const left = await db().selectFrom('idempotency_keys').select('expires_at').execute();
      expect(left.every((s) => s.expires_at.getTime() > clock.now.getTime())).toBe(true);
      expect(await t.services.idempotency.count(other.id)).toBe(0);
    });
  });
});
