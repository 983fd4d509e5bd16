import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { nessusReport } from '../modules/imports/nessus-report.js';

// Every time the API returns or a rule compares comes from the application's
// clock, never from the database's now() or the system clock. The clock is set years away from
// any day this suite may run on, before and after it, so that a time taken elsewhere shows.
const DAY = 86_400_000;
const STARTS = ['2031-03-04T05:06:07.000Z', '2019-01-01T00:00:00.000Z'];

describe.each(DB_KINDS)('the application clock is the one source of time [%s]', (kind) => {
  describe.each(STARTS)('starting at %s', (start) => {
    const t0 = new Date(start);
    /** The clock's time on day n of the scenario. */
    const day = (n: number) => new Date(t0.getTime() + n * DAY).toISOString();
    const clock = new TestClock(new Date(t0));
    const goTo = (n: number) => {
      clock.now = new Date(day(n));
    };

    let tdb: TestDatabase;
    let t: TestApp;
    let admin: Credentials;
    let browser: Browser;
    const ids: Record<string, string> = {};

    const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown) =>
      t.app.inject({
        method,
        url: `/api/latest${url}`,
        headers: {
          ...authHeaders(admin),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
    const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown) => {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res.json();
    };
    const rows = async (query: ReturnType<typeof sql>) =>
      (await query.execute(tdb.database.db)).rows as Record<string, unknown>[];
    const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
    const upload = async (report: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/latest/imports',
        headers: { ...authHeaders(admin), 'content-type': 'application/xml' },
        payload: report,
      });
      expect(res.statusCode, res.body).toBe(202);
      await t.services.imports.settled(res.json().Id);
      return ok('GET', `/imports/${res.json().Id}`);
    };

    beforeAll(async () => {
      tdb = await newTestDatabase(kind);
      t = await buildTestApp(tdb.database, { background: true, clock });
      admin = t.admin;
    });
    afterAll(async () => {
      await t?.close();
      await tdb?.drop();
    });

    it('no column takes the database’s time by default', async () => {
      const defaults = await rows(sql`
        select table_name, column_name, column_default from information_schema.columns
        where table_schema = current_schema()
          and column_default ~* '(now|clock_timestamp|statement_timestamp|transaction_timestamp)\\(|current_(timestamp|date|time)|localtime'`);
      expect(defaults).toEqual([]);
    });

    it('day 0: organisation, users, session and API key are created at the clock’s time', async () => {
      expect(t.org.createdAt.toISOString()).toBe(day(0));
      const user = await ok('POST', '/users', {
        Email: `clock-${kind}-${t0.getTime()}@example.com`,
        Role: 'Admin',
        Password: 'the clock is the one source',
      });
      expect(user.CreatedAt).toBe(day(0));
      ids.user = user.Id;
      browser = await signInAs(t.app, user.Email, 'the clock is the one source');
      const session = await rows(
        sql`select created_at, last_seen_at from sessions where user_id = ${user.Id}::uuid`,
      );
      expect(session.map((s) => [iso(s.created_at), iso(s.last_seen_at)])).toEqual([[day(0), day(0)]]);

      const res = await t.app.inject({
        method: 'POST',
        url: '/api/latest/apikeys',
        headers: { ...browser.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ Name: 'pipeline', ExpiresInDays: 30 }),
      });
      expect(res.statusCode, res.body).toBe(201);
      const key = res.json();
      expect(key.CreatedAt).toBe(day(0));
      expect(key.ExpiresAt).toBe(day(30));
      ids.key = key.Id;
      ids.accessKey = key.AccessKey;
      ids.secretKey = key.SecretKey;
    });

    it('day 1: a key’s last use and expiry follow the clock; a new asset is seen and created then', async () => {
      goTo(1);
      const check = (c: { accessKey: string; secretKey: string }) =>
        t.app.inject({ method: 'GET', url: '/api/integration/authenticationcheck', headers: authHeaders(c) });
      const key = { accessKey: ids.accessKey!, secretKey: ids.secretKey! };
      expect((await check(key)).body).toBe('Authenticated');
      await t.services.apiKeys.flushLastUsed();
      const [used] = await rows(sql`select last_used_at from api_keys where id = ${ids.key}::uuid`);
      expect(iso(used?.last_used_at)).toBe(day(1));

      const asset = await ok('POST', '/assets', { Kind: 'Host', IpAddresses: ['10.20.30.40'] });
      expect(asset).toMatchObject({
        CreatedAt: day(1),
        UpdatedAt: day(1),
        FirstSeen: day(1),
        LastSeen: day(1),
      });
      ids.asset = asset.Id;

      // Expiry is a rule comparing with the clock: the key stops working on day 30 of the clock,
      // whatever the day of the machine.
      goTo(30);
      expect((await check(key)).statusCode).toBe(401);
      goTo(1);
      expect((await check(key)).body).toBe('Authenticated');
    });

    it('day 2: an asset change, findings and their vulnerability take the clock’s time; SLA counts from it', async () => {
      goTo(2);
      const asset = await ok('PATCH', `/assets/${ids.asset}`, { Criticality: 5 });
      expect(asset).toMatchObject({ CreatedAt: day(1), UpdatedAt: day(2) });

      const finding = await ok('POST', '/findings', {
        AssetId: ids.asset,
        Vulnerability: { Title: 'Clockwork service exposed', Severity: 'High' },
        Location: { Kind: 'Port', Port: 443, Protocol: 'tcp' },
      });
      expect(finding).toMatchObject({
        CreatedAt: day(2),
        UpdatedAt: day(2),
        FirstSeen: day(2),
        LastSeen: day(2),
        // High: 30 days from first seen by default.
        DueAt: day(32),
      });
      expect(finding.Events.map((e: { At: string }) => e.At)).toEqual([day(2)]);
      ids.finding = finding.Id;
      const vulnerability = await ok('GET', `/vulnerabilities/${finding.VulnerabilityId}`);
      expect(vulnerability).toMatchObject({ CreatedAt: day(2), UpdatedAt: day(2) });

      const accepted = await ok('POST', '/findings', {
        AssetId: ids.asset,
        Vulnerability: { Title: 'Clockwork banner', Severity: 'Medium' },
        Location: { Kind: 'Port', Port: 22, Protocol: 'tcp' },
      });
      ids.accepted = accepted.Id;
    });

    it('day 3: state changes, a ticket, its links and comments take the clock’s time', async () => {
      goTo(3);
      const fixed = await ok('POST', `/findings/${ids.finding}/state`, { State: 'Fixed' });
      expect(fixed).toMatchObject({ State: 'Fixed', FixedAt: day(3), UpdatedAt: day(3), CreatedAt: day(2) });

      // A risk acceptance must end after the clock's now: a day before it is refused even when
      // that day is still to come on the machine running the test (and the reverse).
      const past = await call('POST', `/findings/${ids.accepted}/state`, {
        State: 'RiskAccepted',
        Justification: 'compensating control',
        Until: day(2),
      });
      expect(past.statusCode).toBe(400);
      expect(past.headers['content-type']).toMatch(/application\/problem\+json/);
      const accepted = await ok('POST', `/findings/${ids.accepted}/state`, {
        State: 'RiskAccepted',
        Justification: 'compensating control',
        Until: day(8),
      });
      expect(accepted).toMatchObject({ State: 'RiskAccepted', RiskAcceptedUntil: day(8), UpdatedAt: day(3) });

      const ticket = await ok('POST', '/tickets', { Title: 'Stop the clockwork', FindingIds: [ids.finding] });
      expect(ticket).toMatchObject({ CreatedAt: day(3), UpdatedAt: day(3) });
      ids.ticket = ticket.Id;
      const commented = await ok('POST', `/tickets/${ids.ticket}/comments`, { Body: 'On it.' });
      expect(JSON.stringify(commented)).toContain(day(3));
      const detail = await ok('GET', `/tickets/${ids.ticket}`);
      expect(detail.Comments.map((c: { CreatedAt: string }) => c.CreatedAt)).toEqual([day(3)]);
      expect(detail.Events.map((e: { At: string }) => e.At)).toEqual([day(3)]);
      const links = await rows(
        sql`select linked_at from ticket_findings where ticket_id = ${ids.ticket}::uuid`,
      );
      expect(links.map((l) => iso(l.linked_at))).toEqual([day(3)]);
    });

    it('day 4: ticket, settings and user changes take the clock’s time; an acceptance not yet due stays', async () => {
      goTo(4);
      const ticket = await ok('PATCH', `/tickets/${ids.ticket}`, { State: 'InProgress' });
      expect(ticket).toMatchObject({ State: 'InProgress', CreatedAt: day(3), UpdatedAt: day(4) });

      await ok('PUT', '/settings', { SlaDays: { Critical: 5, High: 20, Medium: 60, Low: 120, Info: null } });
      const [settings] = await rows(
        sql`select updated_at from organization_settings where organization_id = ${t.org.id}::uuid`,
      );
      expect(iso(settings?.updated_at)).toBe(day(4));

      await ok('PATCH', `/users/${ids.user}`, { Name: 'Timekeeper' });
      const [user] = await rows(sql`select created_at, updated_at from users where id = ${ids.user}::uuid`);
      expect([iso(user?.created_at), iso(user?.updated_at)]).toEqual([day(0), day(4)]);

      expect(await t.services.findings.expireRiskAcceptances()).toBe(0);
      expect((await ok('GET', `/findings/${ids.accepted}`)).State).toBe('RiskAccepted');
    });

    it('day 9: a risk acceptance whose date has passed on the clock returns to Open then', async () => {
      goTo(9);
      expect(await t.services.findings.expireRiskAcceptances()).toBe(1);
      const finding = await ok('GET', `/findings/${ids.accepted}`);
      expect(finding).toMatchObject({ State: 'Open', RiskAcceptedUntil: null, UpdatedAt: day(9) });
      expect(finding.Events.at(-1)).toMatchObject({ At: day(9), ToState: 'Open' });
    });

    it('days 10 and 11: an import and its re-import record the clock’s time on everything they write', async () => {
      const report = nessusReport([
        { ip: '10.20.30.50', fqdn: 'tick.example.com', items: [{ plugin: '90001', name: 'Tick Tock 1.0' }] },
      ]);
      goTo(10);
      const first = await upload(report);
      expect(first).toMatchObject({
        State: 'Completed',
        CreatedAt: day(10),
        StartedAt: day(10),
        FinishedAt: day(10),
      });
      const [finding] = (await ok('GET', '/findings?Search=Tick')).Items;
      expect(finding).toMatchObject({
        CreatedAt: day(10),
        UpdatedAt: day(10),
        FirstSeen: day(10),
        LastSeen: day(10),
        // The SLA set on day 4: High, 20 days.
        DueAt: day(30),
      });
      const asset = await ok('GET', `/assets/${finding.AssetId}`);
      expect(asset).toMatchObject({ CreatedAt: day(10), UpdatedAt: day(10), FirstSeen: day(10) });
      const vulnerability = await ok('GET', `/vulnerabilities/${finding.VulnerabilityId}`);
      expect(vulnerability).toMatchObject({ CreatedAt: day(10), UpdatedAt: day(10) });

      goTo(11);
      const again = await upload(report);
      expect(again).toMatchObject({ State: 'Completed', CreatedAt: day(11), FinishedAt: day(11) });
      const seen = await ok('GET', `/findings/${finding.Id}`);
      expect(seen).toMatchObject({ CreatedAt: day(10), FirstSeen: day(10), LastSeen: day(11) });
      const seenAsset = await ok('GET', `/assets/${finding.AssetId}`);
      expect(seenAsset).toMatchObject({ CreatedAt: day(10), FirstSeen: day(10), LastSeen: day(11) });
    });

    it('leaves no time in the database outside the clock’s days', async () => {
      // Every time written above is a day of the scenario or a date computed from one (expiry,
      // due dates up to the longest SLA): none may come from another clock.
      const columns = await rows(sql`
        select table_name, column_name from information_schema.columns
        where table_schema = current_schema() and data_type like 'timestamp%'
          and column_name not in ('published_at', 'modified_at', 'withdrawn_at')`);
      expect(columns.length).toBeGreaterThan(20);
      const outside: string[] = [];
      for (const c of columns) {
        const table = sql.table(String(c.table_name));
        const column = sql.ref(String(c.column_name));
        const [range] = await rows(sql`select min(${column}) as lo, max(${column}) as hi from ${table}`);
        for (const value of [range?.lo, range?.hi]) {
          if (value === null || value === undefined) continue;
          const at = (value as Date).getTime();
          if (at < t0.getTime() || at > t0.getTime() + 200 * DAY)
            outside.push(`${c.table_name}.${c.column_name} = ${iso(value)}`);
        }
      }
      expect(outside).toEqual([]);
      const audit = await rows(sql`select distinct occurred_at from audit_events order by 1`);
      expect(audit.length).toBeGreaterThan(0);
      for (const a of audit)
        expect([day(0), day(1), day(2), day(3), day(4), day(10), day(11)]).toContain(iso(a.occurred_at));
    });
  });
});
