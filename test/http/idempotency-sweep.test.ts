import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../src/app.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { keepsAnswer } from '../../src/modules/idempotency/service.js';
import {
  authHeaders,
  type Browser,
  buildTestApp,
  type Credentials,
  signInAs,
  type TestApp,
} from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import {
  callFor,
  type Estate,
  expectProblem,
  populate,
  requestFor,
  routeKey,
  type SweepCall,
  sweepCalls,
} from '../helpers/sweep.js';

/**
 * Every POST route of both channels, called with a body it accepts and an Idempotency-Key: the
 * same call again is answered with the first answer (or, where that answer shows a secret, a 410
 * saying it was carried out), the same key with another body is a 422, and a malformed key a 400.
 * A POST that takes no key is anonymous or declares that it changes nothing, and is listed here.
 */

/** The POSTs that take no key: anonymous ones, and those that change nothing (`idempotency: false`). */
const NOT_TAKING_A_KEY = [
  'POST /allowedtargets/check',
  'POST /assets/:AssetId/reports/latest/vulnerabilitiesandfindings/withStartIndex/:StartIndex/andPageSize/:PageSize',
  'POST /assets/installedsoftware/withStartIndex/:StartIndex/andPageSize/:PageSize',
  'POST /assets/withstartindex/:StartIndex/andpagesize/:PageSize',
  'POST /discoveryscans/:Id/reports/latest/hosts/withStartIndex/:StartIndex/andPageSize/:PageSize',
  'POST /discoveryscans/withstartindex/:StartIndex/andpagesize/:PageSize',
  'POST /intel/match',
  'POST /scannodes/enrol',
  'POST /session',
  'POST /session/mfa',
  'POST /session/mfa/enrolment',
  'POST /session/mfa/enrolment/confirm',
  'POST /session/organization',
  'POST /things/withStartIndex/:StartIndex/andPageSize/:PageSize',
  'POST /webscans/:Id/reports/latest/vulnerabilitiesandfindings/withstartindex/:StartIndex/andpagesize/:PageSize',
];

const PASSWORD = 'the idempotency sweep';

/** The same call with other bytes: the fingerprint differs, the route would still accept it. */
function otherPayload(call: SweepCall): SweepCall {
  if (call.payload !== undefined)
    return { ...call, payload: Buffer.concat([Buffer.from(call.payload), Buffer.from('\n')]) };
  if (call.body !== undefined)
    return {
      ...call,
      body: undefined,
      payload: `${JSON.stringify(call.body)}\n`,
      contentType: 'application/json',
    };
  return { ...call, payload: '{}', contentType: 'application/json' };
}

describe.each(DB_KINDS)('every POST honours Idempotency-Key [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let estate: Estate;
  let calls: Record<string, () => SweepCall>;
  let admin: Credentials;
  let browser: Browser;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_NOTIFY_ALLOW_LOOPBACK: 'true' },
    });
    const ctx: ServiceContext = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const email = 'idempotency-sweep@example.com';
    const user = await t.services.users.create(ctx, { email, role: 'Admin', password: PASSWORD });
    const { key, secretKey } = await t.services.apiKeys.create(ctx, { userId: user.id, name: 'sweep' });
    admin = { accessKey: key.accessKey, secretKey, userId: user.id, apiKeyId: key.id };
    // An installation Admin: the installation's POST is swept with their session.
    await t.services.users.setInstallationAdmin(email, true);
    browser = await signInAs(t.app, email, PASSWORD);
    estate = await populate(t, admin);
    calls = sweepCalls(estate);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const posts = () => t.routes.filter((r) => r.channel && r.method === 'POST');
  /** The admin's API key, or the admin's browser on a route that takes sessions only. */
  const headersFor = (r: RegisteredRoute) =>
    r.access && 'role' in r.access && r.access.via && !r.access.via.includes('apiKey')
      ? browser.headers
      : authHeaders(admin);
  const keyed = (r: RegisteredRoute, call: SweepCall, key: string): InjectOptions => {
    const request = requestFor(r, call, headersFor(r));
    return { ...request, headers: { ...request.headers, 'idempotency-key': key } };
  };

  it('lists the POSTs that take no key, and gives the header to every other', () => {
    const without = posts().filter((r) => !r.idempotency);
    for (const channel of ['latest', 'integration'])
      expect(
        [...new Set(without.filter((r) => r.channel === channel).map(routeKey))].sort(),
        channel,
      ).toEqual(
        NOT_TAKING_A_KEY.filter((k) => posts().some((r) => r.channel === channel && routeKey(r) === k)),
      );
    for (const r of without)
      expect(r.access && ('public' in r.access || NOT_TAKING_A_KEY.includes(routeKey(r))), routeKey(r)).toBe(
        true,
      );
    // 74 in both channels when this was written, the node protocol's included.
    expect(posts().filter((r) => r.idempotency).length).toBeGreaterThanOrEqual(70);
  });

  it('answers a retry of each with its first answer, and the key with another body a 422', async () => {
    const unswept: string[] = [];
    const swept = new Set<string>();
    for (const r of posts()) {
      // The scan node protocol has a test of its own (a node key is not the estate's).
      if (!r.idempotency || (r.access && 'scanNode' in r.access)) continue;
      const call = callFor(calls, r);
      if (!call) {
        unswept.push(routeKey(r));
        continue;
      }
      const what = `${r.channel} ${routeKey(r)}`;
      const key = randomUUID();
      const first = await t.app.inject(keyed(r, call, key));
      expect(first.statusCode, `${what}: ${first.body}`).toBeLessThan(500);
      expect(first.headers['idempotent-replayed'], what).toBeUndefined();
      expect(keepsAnswer(first.statusCode), `${what} answered ${first.statusCode}`).toBe(true);
      const again = await t.app.inject(keyed(r, call, key));
      if (r.idempotency === 'secret' && first.statusCode < 300) {
        expectProblem(again, 410, 'idempotency-answer-gone', what);
        expect(again.json().firstStatus, what).toBe(first.statusCode);
      } else {
        expect(again.statusCode, `${what}: ${again.body}`).toBe(first.statusCode);
        expect(again.headers['idempotent-replayed'], what).toBe('true');
        expect(again.headers['content-type'], what).toBe(first.headers['content-type']);
        expect(again.headers.location, what).toBe(first.headers.location);
        expect(again.body, what).toBe(first.body);
      }
      const reused = await t.app.inject(keyed(r, otherPayload(call), key));
      expectProblem(reused, 422, 'idempotency-key-reused', `${what}, another body`);
      swept.add(what);
    }
    expect([...new Set(unswept)], 'POST routes without a call in sweepCalls').toEqual([]);
    // 68 when this was written (both channels, the node protocol aside): a floor against a sweep
    // that quietly stops sweeping.
    expect(swept.size).toBeGreaterThanOrEqual(65);
  });

  it('refuses a malformed key on each with a 400, before anything is done', async () => {
    let requests = 0;
    for (const r of posts()) {
      if (!r.idempotency || (r.access && 'scanNode' in r.access)) continue;
      const call = callFor(calls, r)!;
      const what = `${r.channel} ${routeKey(r)}`;
      for (const key of ['', 'k'.repeat(256), 'caf\u00e9']) {
        expectProblem(await t.app.inject(keyed(r, call, key)), 400, 'idempotency-key-invalid', what);
        requests += 1;
      }
    }
    expect(requests).toBeGreaterThanOrEqual(195);
  });
});
