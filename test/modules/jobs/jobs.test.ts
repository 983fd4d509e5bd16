import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('GET /jobs for Admins [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let analyst: Credentials;
  let reader: Credentials;
  let outsider: Credentials;
  let otherOrgId: string;

  const get = (url: string, who?: Credentials, channel = 'latest') =>
    t.app.inject({ method: 'GET', url: `/api/${channel}${url}`, headers: who ? authHeaders(who) : {} });

  /** Moves the test clock on by a second, so that jobs enqueued one after another sort by time. */
  const tick = () => {
    t.clock.now = new Date(t.clock.now.getTime() + 1000);
  };

  const badRequest = async (url: string, field: string) => {
    const res = await get(url, admin);
    expect(res.statusCode, url).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().detail, url).toContain(field);
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    admin = t.admin;
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    const other = await t.services.organizations.create('Other');
    otherOrgId = other.id;
    outsider = await t.userWithKey('Admin', other);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('lists the organisation’s and the system’s jobs, filtered and paged, without payloads', async () => {
    const k = `list-${kind}`;
    const own = [];
    for (let i = 0; i < 3; i++) {
      own.push(
        await t.services.jobs.enqueueUnchecked(k, { secret: 'internal' }, { organizationId: t.org.id }),
      );
      tick();
    }
    const system = await t.services.jobs.enqueueUnchecked(k, { secret: 'internal' });
    tick();
    const foreign = await t.services.jobs.enqueueUnchecked(k, {}, { organizationId: otherOrgId });
    const [running] = await t.services.jobs.claim('worker-1', [k], 60_000, 1);
    expect(running?.id).toBe(own[0]);

    const all = await get(`/jobs?Kind=${k}&PageSize=500`, admin);
    expect(all.statusCode).toBe(200);
    const body = all.json();
    expect(body.TotalCount).toBe(4);
    expect(body.Items.map((j: { Id: string }) => j.Id)).toEqual([system, own[2], own[1], own[0]]);
    expect(body.Items.map((j: { Id: string }) => j.Id)).not.toContain(foreign);
    expect(all.body).not.toContain('internal');
    expect(body.Items[0]).toEqual({
      Id: system,
      Kind: k,
      State: 'Queued',
      Attempts: 0,
      MaxAttempts: 5,
      RunAt: expect.any(String),
      LockedBy: null,
      LeaseUntil: null,
      LastError: null,
      CreatedAt: expect.any(String),
      UpdatedAt: expect.any(String),
      FinishedAt: null,
      OrganizationId: null,
    });
    expect(body.Items[3]).toMatchObject({ State: 'Running', LockedBy: 'worker-1', Attempts: 1 });
    expect(body.Items[3].LeaseUntil).toEqual(expect.any(String));
    expect(body.Items[1].OrganizationId).toBe(t.org.id);

    const runningOnly = (await get(`/jobs?Kind=${k}&State=Running`, admin)).json();
    expect(runningOnly.TotalCount).toBe(1);
    expect(runningOnly.Items[0].Id).toBe(own[0]);

    const first = (await get(`/jobs?Kind=${k}&PageSize=3`, admin)).json();
    expect(first.Items).toHaveLength(3);
    expect(first.TotalCount).toBe(4);
    expect(first.NextCursor).toEqual(expect.any(String));
    const second = (
      await get(`/jobs?Kind=${k}&PageSize=3&Cursor=${encodeURIComponent(first.NextCursor)}`, admin)
    ).json();
    expect(second.Items.map((j: { Id: string }) => j.Id)).toEqual([own[0]]);
    expect(second.NextCursor).toBeNull();

    // The integration channel answers the same.
    const integration = await get(`/jobs?Kind=${k}`, admin, 'integration');
    expect(integration.statusCode).toBe(200);
    expect(integration.json().TotalCount).toBe(4);

    // The other organisation's Admin sees their job and the system job, not this organisation's.
    const theirs = (await get(`/jobs?Kind=${k}`, outsider)).json();
    expect(theirs.Items.map((j: { Id: string }) => j.Id).sort()).toEqual([foreign, system].sort());
  });

  it('answers one job: its own, a system job; another organisation’s or an unknown one is 404', async () => {
    const k = `get-${kind}`;
    const own = await t.services.jobs.enqueueUnchecked(
      k,
      { secret: 'internal' },
      { organizationId: t.org.id },
    );
    const system = await t.services.jobs.enqueueUnchecked(k, null);
    const foreign = await t.services.jobs.enqueueUnchecked(k, {}, { organizationId: otherOrgId });

    const mine = await get(`/jobs/${own}`, admin);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({ Id: own, Kind: k, State: 'Queued', OrganizationId: t.org.id });
    expect(mine.body).not.toContain('internal');
    expect((await get(`/jobs/${system}`, admin)).json()).toMatchObject({ Id: system, OrganizationId: null });
    expect((await get(`/jobs/${system}`, outsider)).statusCode).toBe(200);

    for (const id of [foreign, '01900000-0000-7000-8000-000000000000']) {
      const res = await get(`/jobs/${id}`, admin);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await get(`/jobs/${foreign}`, outsider)).statusCode).toBe(200);
    expect((await get(`/jobs/${own}`, outsider)).statusCode).toBe(404);
  });

  it('shows a failed job’s last error', async () => {
    const k = `fail-${kind}`;
    const id = await t.services.jobs.enqueueUnchecked(k, {}, { organizationId: t.org.id, maxAttempts: 1 });
    await t.services.jobs.claim('worker-2', [k], 60_000, 1);
    expect(await t.services.jobs.fail(id, 'worker-2', new Error('the feed was unreachable'))).toBe(true);
    const res = (await get(`/jobs?Kind=${k}&State=Failed`, admin)).json();
    expect(res.Items[0]).toMatchObject({
      Id: id,
      State: 'Failed',
      Attempts: 1,
      LastError: 'the feed was unreachable',
      FinishedAt: expect.any(String),
    });
  });

  it('is for Admins only', async () => {
    for (const url of ['/jobs', '/jobs/01900000-0000-7000-8000-000000000000']) {
      expect((await get(url)).statusCode, url).toBe(401);
      expect((await get(url, analyst)).statusCode, url).toBe(403);
      expect((await get(url, reader)).statusCode, url).toBe(403);
    }
  });

  it('refuses bad input with 400 naming the field', async () => {
    await badRequest('/jobs?State=Done', 'State');
    await badRequest('/jobs?PageSize=0', 'PageSize');
    await badRequest('/jobs?PageSize=501', 'PageSize');
    await badRequest('/jobs?Cursor=nonsense', 'Cursor');
    await badRequest('/jobs/not-a-uuid', 'Id');
    await badRequest('/jobs?Unknown=1', 'Unknown');
  });
});
