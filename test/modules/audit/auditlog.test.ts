import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_CATALOGUE } from '../../../src/jobs/catalogue.js';
import type { Job } from '../../../src/jobs/types.js';
import {
  authHeaders,
  type Browser,
  buildTestApp,
  type Credentials,
  signInAs,
  type TestApp,
} from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { enrolNode } from '../../helpers/scan-nodes.js';
import { fixturePath } from '../../importers/helpers.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Who = Credentials | Browser;
interface Entry {
  Id: string;
  Time: string;
  ActorType: string;
  ActorId: string | null;
  ActorName: string | null;
  Action: string;
  TargetType: string | null;
  TargetId: string | null;
  Details: Record<string, unknown>;
  IpAddress: string | null;
  RequestId: string | null;
}

const PASSWORD = 'correct horse battery staple';

describe.each(DB_KINDS)('the audit log [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let reader: Credentials;
  let outsider: Credentials;
  let adaEmail: string;
  let adaId: string;
  let ada: Browser;

  const headersOf = (who: Who | null) =>
    who === null ? {} : 'cookie' in who ? who.headers : authHeaders(who as Credentials);
  const call = (who: Who | null, method: Method, url: string, body?: unknown, accept?: string) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      remoteAddress: '127.0.9.7',
      headers: {
        ...headersOf(who),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(accept ? { accept } : {}),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const log = async (query = '', who: Who = admin): Promise<Entry[]> => {
    const res = await call(who, 'GET', `/auditlog?PageSize=500${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().Items;
  };
  const expectProblem = (res: Awaited<ReturnType<typeof call>>, status: number, words?: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    if (words) expect(res.body).toContain(words);
  };
  const ctx = () => ({ organizationId: t.org.id, actor: { type: 'system' as const, id: null } });
  const purge = () =>
    JOB_CATALOGUE['audit-purge'].handle(
      t.services,
      null,
      { id: 'test' } as Job,
      new AbortController().signal,
    );

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    reader = await t.userWithKey('ReadOnly');
    const other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Admin', other);
    adaEmail = `ada-${kind}@example.com`;
    adaId = (
      await t.services.users.create(ctx(), {
        email: adaEmail,
        name: 'Ada Manager',
        role: 'Manager',
        password: PASSWORD,
      })
    ).id;
    ada = await signInAs(t.app, adaEmail, PASSWORD, '127.0.9.3');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('records sign-ins and the failures of known users (the email tried, never the password) with IP and request id', async () => {
    const wrong = 'not-the-password-123';
    const failed = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session',
      remoteAddress: '127.0.9.4',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: adaEmail, Password: wrong }),
    });
    expect(failed.statusCode).toBe(401);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session',
      remoteAddress: '127.0.9.4',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'nobody-here@example.com', Password: wrong }),
    });
    expect(unknown.statusCode).toBe(401);

    const signedIn = await log('&Action=session.signed_in');
    expect(signedIn[0]).toMatchObject({
      ActorType: 'user',
      ActorId: adaId,
      ActorName: `Ada Manager <${adaEmail}>`,
      TargetType: 'session',
      IpAddress: '127.0.9.3',
    });
    expect(signedIn[0]!.RequestId).toBeTruthy();
    const failures = await log('&Action=session.sign_in_failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      ActorId: adaId,
      TargetId: adaId,
      IpAddress: '127.0.9.4',
      Details: { email: adaEmail, reason: 'password' },
    });
    expect(failures[0]!.RequestId).toBeTruthy();
    // Neither the password nor the unknown email is anywhere in either organisation's log.
    for (const who of [admin, outsider]) {
      const all = JSON.stringify(await log('', who));
      expect(all).not.toContain(wrong);
      expect(all).not.toContain('nobody-here@example.com');
    }
  });

  it('records keys created and revoked, roles changed and settings changed, naming the actor', async () => {
    const key = await call(ada, 'POST', '/apikeys', { Name: 'Pipeline' });
    expect(key.statusCode, key.body).toBe(201);
    expect(key.body).not.toContain('"Details"');
    expect((await call(ada, 'DELETE', `/apikeys/${key.json().Id}`)).statusCode).toBe(200);
    const role = await call(admin, 'PATCH', `/users/${reader.userId}`, { Role: 'Analyst' });
    expect(role.statusCode, role.body).toBe(200);
    const settings = await call(manager, 'PUT', '/settings', {
      SlaDays: { Critical: 5, High: 30, Medium: 90, Low: 180, Info: null },
    });
    expect(settings.statusCode, settings.body).toBe(200);

    const keys = await log(`&Action=apikey.&Actor=${adaId}`);
    expect(keys.map((e) => e.Action)).toEqual(['apikey.revoked', 'apikey.created']);
    for (const e of keys)
      expect(e).toMatchObject({ ActorName: `Ada Manager <${adaEmail}>`, TargetId: key.json().Id });
    expect(JSON.stringify(keys)).not.toContain(key.json().SecretKey);
    expect((await log('&Action=user.role_changed'))[0]).toMatchObject({
      ActorType: 'apikey',
      ActorId: admin.apiKeyId,
      ActorName: 'Admin key',
      TargetId: reader.userId,
      Details: { from: 'ReadOnly', to: 'Analyst' },
    });
    expect((await log('&Action=settings.'))[0]).toMatchObject({
      Action: 'settings.sla_changed',
      ActorId: manager.apiKeyId,
    });
    await call(admin, 'PATCH', `/users/${reader.userId}`, { Role: 'ReadOnly' });
  });

  it('records risk acceptance, allowed targets, imports, scans started and stopped, deletions and CSV exports', async () => {
    const asset = (await call(manager, 'POST', '/assets', { Kind: 'Host', IpAddresses: ['10.9.0.1'] })).json()
      .Id;
    const finding = (
      await call(manager, 'POST', '/findings', {
        AssetId: asset,
        Vulnerability: { Title: 'Telnet open', Severity: 'High' },
      })
    ).json().Id;
    const until = new Date(t.clock.now.getTime() + 30 * 86_400_000).toISOString();
    const accepted = await call(manager, 'POST', `/findings/${finding}/state`, {
      State: 'RiskAccepted',
      Justification: 'isolated lab',
      Until: until,
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const more = [];
    for (const title of ['SMBv1 enabled', 'FTP open'])
      more.push(
        (
          await call(manager, 'POST', '/findings', {
            AssetId: asset,
            Vulnerability: { Title: title, Severity: 'Low' },
          })
        ).json().Id,
      );
    const bulk = await call(manager, 'POST', '/findings/bulk/state', {
      Filter: { Ids: more },
      State: 'RiskAccepted',
      Justification: 'lab only',
      Until: until,
    });
    expect(bulk.json()).toEqual({ Matched: 2, Changed: 2, Skipped: 0 });
    const software = await call(manager, 'POST', `/assets/${asset}/software`, {
      Name: 'openssl',
      Version: '3.0.2',
    });
    expect(software.statusCode, software.body).toBe(201);
    expect(
      (await call(manager, 'DELETE', `/assets/${asset}/software/${software.json().Id}`)).statusCode,
    ).toBe(204);

    const allowed = await call(admin, 'POST', '/allowedtargets', {
      Kind: 'Allowed',
      Target: '198.18.0.0/24',
    });
    expect(allowed.statusCode, allowed.body).toBe(201);
    await enrolNode(t, admin);
    const scan = await call(admin, 'POST', '/discoveryscans', {
      Name: 'Lab',
      ScanTargets: [{ Range: '198.18.0.0/29' }],
    });
    expect(scan.statusCode, scan.body).toBe(201);
    expect((await call(manager, 'POST', `/discoveryscans/${scan.json().Id}/runs`)).statusCode).toBe(201);
    expect((await call(manager, 'POST', `/discoveryscans/${scan.json().Id}/stop`)).statusCode).toBe(200);
    expect((await call(admin, 'DELETE', `/discoveryscans/${scan.json().Id}`)).statusCode).toBe(204);
    expect((await call(admin, 'DELETE', `/allowedtargets/${allowed.json().Id}`)).statusCode).toBe(204);

    const report = readFileSync(fixturePath('qualys/Qualys_Sample_Report.csv'));
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(manager), 'content-type': 'text/csv' },
      payload: report,
    });
    // Recorded when submitted: the import itself is a job (no worker runs in this test).
    expect(imported.statusCode, imported.body).toBe(202);

    const csv = await call(reader, 'GET', '/findings?Severity=High', undefined, 'text/csv');
    expect(csv.statusCode).toBe(200);
    expect((await call(reader, 'GET', '/assets', undefined, 'text/csv')).statusCode).toBe(200);
    expect((await call(manager, 'DELETE', `/assets/${asset}`)).statusCode).toBe(204);

    const entries = await log();
    const find = (action: string) => entries.find((e) => e.Action === action);
    expect(find('finding.risk_accepted')).toMatchObject({
      TargetType: 'finding',
      TargetId: finding,
      ActorId: manager.apiKeyId,
      Details: { from: 'Open', justification: 'isolated lab', until },
    });
    expect(find('findings.risk_accepted')).toMatchObject({
      TargetId: null,
      Details: { filter: { ids: more }, matched: 2, changed: 2, justification: 'lab only', until },
    });
    expect(find('software.deleted')).toMatchObject({
      TargetId: software.json().Id,
      Details: { assetId: asset },
    });
    expect(find('allowedtarget.created')).toMatchObject({ TargetId: allowed.json().Id });
    expect(find('allowedtarget.deleted')).toMatchObject({ TargetId: allowed.json().Id });
    expect(find('discovery-scan.started')).toMatchObject({
      TargetId: scan.json().Id,
      ActorId: manager.apiKeyId,
    });
    expect(find('discovery-scan.stopped')).toMatchObject({ TargetId: scan.json().Id });
    expect(find('discovery-scan.deleted')).toMatchObject({
      TargetId: scan.json().Id,
      Details: { name: 'Lab' },
    });
    expect(find('import.submitted')).toMatchObject({ TargetType: 'import', TargetId: imported.json().Id });
    expect(find('asset.deleted')).toMatchObject({ TargetId: asset, ActorId: manager.apiKeyId });
    const exports = entries.filter((e) => e.Action === 'export.downloaded');
    expect(exports.map((e) => e.Details.list).sort()).toEqual(['assets', 'findings']);
    expect(exports.find((e) => e.Details.list === 'findings')!.Details.filter).toMatchObject({
      severities: ['High'],
    });
    expect(exports.every((e) => e.ActorId === reader.apiKeyId)).toBe(true);
  });

  it('filters by actor, actor type, action (exact or prefix), target and time, and pages newest first', async () => {
    const start = t.clock.now;
    t.clock.advanceDays(1);
    await call(admin, 'PATCH', `/users/${reader.userId}`, { Name: 'Rita Reader' });
    t.clock.advanceDays(1);
    await call(admin, 'PATCH', `/users/${reader.userId}`, { Name: 'Rita R.' });

    const byKey = await log(`&Actor=${manager.apiKeyId}`);
    expect(byKey.length).toBeGreaterThan(3);
    expect(byKey.every((e) => e.ActorId === manager.apiKeyId)).toBe(true);
    const byUser = await log(`&Actor=${adaId}`);
    expect(byUser.every((e) => e.ActorId === adaId && e.ActorType === 'user')).toBe(true);
    expect((await log('&Actor=system')).every((e) => e.ActorType === 'system')).toBe(true);
    expect((await log('&Actor=system')).map((e) => e.Action)).toContain('user.created');
    expect((await log('&ActorType=user')).every((e) => e.ActorType === 'user')).toBe(true);
    expect((await log('&Action=session.sign*')).map((e) => e.Action).sort()).toEqual([
      'session.sign_in_failed',
      'session.signed_in',
    ]);
    expect(await log('&Action=session.sign')).toEqual([]);
    const target = await log(`&TargetType=user&TargetId=${reader.userId}`);
    // Newest first; a role change and its update share their time (and their order within it).
    expect(target.map((e) => e.Action).sort()).toEqual(
      [
        'user.updated',
        'user.updated',
        'user.role_changed',
        'user.updated',
        'user.role_changed',
        'user.updated',
        'user.created',
      ].sort(),
    );
    expect(target.map((e) => e.Time)).toEqual(
      target
        .map((e) => e.Time)
        .sort()
        .reverse(),
    );
    expect(target.every((e) => e.TargetId === reader.userId)).toBe(true);

    const day1 = new Date(start.getTime() + 86_400_000).toISOString();
    const within = await log(`&From=${day1}&To=${day1}`);
    expect(within.map((e) => e.Details)).toEqual([{ name: 'Rita Reader' }]);
    const after = await log(`&From=${day1}`);
    expect(after.map((e) => e.Time)).toEqual([
      new Date(start.getTime() + 2 * 86_400_000).toISOString(),
      day1,
    ]);
    expect((await log(`&To=${start.toISOString()}`)).every((e) => e.Time <= start.toISOString())).toBe(true);

    // Pages: newest first, each entry once, the count of the filter.
    const all = await log();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(admin, 'GET', `/auditlog?PageSize=3${cursor ? `&Cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().TotalCount).toBe(all.length);
      expect(res.json().Items.length).toBeLessThanOrEqual(3);
      seen.push(...res.json().Items.map((e: Entry) => e.Id));
      cursor = res.json().NextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.Id));
    const times = all.map((e) => e.Time);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('answers CSV with the same filter, records the download, and never shows another organisation', async () => {
    const res = await call(admin, 'GET', `/auditlog?Action=apikey.&Actor=${adaId}`, undefined, 'text/csv');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('auditlog.csv');
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toBe(
      'Time,ActorType,ActorId,ActorName,Action,TargetType,TargetId,Details,IpAddress,RequestId,Id',
    );
    expect(lines.slice(1).map((l) => l.split(',')[4])).toEqual(['apikey.revoked', 'apikey.created']);
    expect(lines[1]).toContain(`Ada Manager <${adaEmail}>`);
    expect((await log('&Action=export.downloaded'))[0]).toMatchObject({
      ActorId: admin.apiKeyId,
      Details: { list: 'auditlog', filter: { action: 'apikey.', actionPrefix: true, actorId: adaId } },
    });

    // The other organisation sees only its own entries, in JSON and CSV, whatever the filter.
    const theirs = await log('', outsider);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((e) => e.ActorId !== adaId && e.TargetId !== reader.userId)).toBe(true);
    expect(await log(`&Actor=${adaId}`, outsider)).toEqual([]);
    const theirCsv = await call(outsider, 'GET', '/auditlog', undefined, 'text/csv');
    expect(theirCsv.body).not.toContain(adaId);
    expect(theirCsv.body).not.toContain(adaEmail);
    expect(theirCsv.body).not.toContain(t.admin.apiKeyId);
    const ours = new Set((await log()).map((e) => e.Id));
    expect(theirs.some((e) => ours.has(e.Id))).toBe(false);
  });

  it('is for Admins only', async () => {
    expectProblem(await call(manager, 'GET', '/auditlog'), 403);
    expectProblem(await call(reader, 'GET', '/auditlog', undefined, 'text/csv'), 403);
    const session = await signInAs(t.app, adaEmail, PASSWORD, '127.0.9.3');
    expectProblem(await call(session, 'GET', '/auditlog'), 403);
    expectProblem(await call(null, 'GET', '/auditlog'), 401);
    // Not in the integration channel.
    const integration = await t.app.inject({
      method: 'GET',
      url: '/api/integration/auditlog',
      headers: authHeaders(admin),
    });
    expectProblem(integration, 404);
  });

  it('refuses bad filters with a problem naming them', async () => {
    const bad: [string, string][] = [
      ['From=yesterday', 'From'],
      ['To=2026-13-45T00:00:00Z', 'To'],
      ['From=2026-11-22T00:00:00Z&To=2026-11-21T00:00:00Z', 'From'],
      ['ActorType=robot', 'ActorType'],
      ['Actor=bob', 'Actor'],
      [`Action=${'a'.repeat(101)}`, 'Action'],
      ['Action=drop%20table', 'Action'],
      [`TargetType=${'t'.repeat(101)}`, 'TargetType'],
      ['TargetId=42', 'TargetId'],
      ['PageSize=0', 'PageSize'],
      ['PageSize=501', 'PageSize'],
      ['Cursor=not-a-cursor', 'Cursor'],
      ['Surprise=1', 'Surprise'],
    ];
    for (const [query, field] of bad) {
      const res = await call(admin, 'GET', `/auditlog?${query}`);
      expectProblem(res, 400, field);
    }
  });

  it('has no way to change or delete an entry', async () => {
    const id = (await log())[0]!.Id;
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST'] as const)
      for (const url of ['/auditlog', `/auditlog/${id}`]) {
        const res = await call(admin, method, url, method === 'DELETE' ? undefined : { Action: 'x' });
        expect([404, 405], `${method} ${url}`).toContain(res.statusCode);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    expect((await log()).find((e) => e.Id === id)).toBeDefined();
  });

  it('refuses UPDATE, DELETE and TRUNCATE in the database itself; only the retention purge deletes', async () => {
    const db = tdb.database.db;
    const id = (await log())[0]!.Id;
    await expect(sql`update audit_events set action = 'forged' where id = ${id}`.execute(db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from audit_events where id = ${id}`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`truncate audit_events`.execute(db)).rejects.toThrow(/append-only/);
    // The purge's setting lasts only for its transaction: the next statement is refused again.
    await t.services.audit.purgeBefore(t.org.id, new Date('2000-01-01T00:00:00Z'));
    await expect(sql`delete from audit_events where id = ${id}`.execute(db)).rejects.toThrow(/append-only/);
    expect((await log()).find((e) => e.Id === id)?.Action).not.toBe('forged');
  });

  it('keeps entries for the retention setting, which only an Admin changes, then the daily purge removes them', async () => {
    expect((await call(reader, 'GET', '/settings')).json().AuditRetentionDays).toBe(365);
    const slaChanges = (await log('&Action=settings.sla_changed')).length;
    const sla = { Critical: 5, High: 30, Medium: 90, Low: 180, Info: null };
    expectProblem(
      await call(manager, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: 30 }),
      403,
      'Admin',
    );
    expectProblem(
      await call(admin, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: 29 }),
      400,
      'AuditRetentionDays',
    );
    expectProblem(
      await call(admin, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: 3651 }),
      400,
      'AuditRetentionDays',
    );
    expectProblem(
      await call(admin, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: '30' }),
      400,
      'AuditRetentionDays',
    );
    expect((await call(reader, 'GET', '/settings')).json().AuditRetentionDays).toBe(365);
    // A Manager may still save the SLAs when the retention is left out or unchanged.
    expect(
      (await call(manager, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: 365 })).statusCode,
    ).toBe(200);

    const set = await call(admin, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: 30 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ AuditRetentionDays: 30, SlaDays: sla });
    expect((await log('&Action=settings.audit_retention_changed'))[0]).toMatchObject({
      ActorId: admin.apiKeyId,
      Details: { from: 365, to: 30 },
    });
    // The SLAs sent as they were beside the retention are no change of theirs.
    expect(await log('&Action=settings.sla_changed')).toHaveLength(slaChanges);
    // The other organisation keeps its entries for ever.
    const forever = await call(outsider, 'PUT', '/settings', { SlaDays: sla, AuditRetentionDays: null });
    expect(forever.json().AuditRetentionDays).toBeNull();

    const before = await log();
    const theirsBefore = await log('', outsider);
    const newest = Date.parse(before[0]!.Time);
    const oldest = Date.parse(before.at(-1)!.Time);
    // 30 days after the oldest entry: none is older than the retention yet.
    t.clock.now = new Date(oldest + 30 * 86_400_000);
    await call(admin, 'PATCH', `/users/${reader.userId}`, { Name: 'Rita, later' });
    await purge();
    expect((await log()).length).toBe(before.length + 1);

    t.clock.now = new Date(newest + 30 * 86_400_000 + 1);
    await purge();
    const after = await log();
    expect(after.map((e) => e.Details)).toEqual([{ name: 'Rita, later' }]);
    expect(await log('', outsider)).toEqual(theirsBefore);
  });
});
