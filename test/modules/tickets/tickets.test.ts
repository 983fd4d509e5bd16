import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('tickets [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let readOnly: Credentials;
  let outsider: Credentials;
  let asset: string;
  const findingIds: string[] = [];

  const send = (method: 'GET' | 'POST' | 'PATCH', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const record = (title: string, port: number) =>
    send('POST', '/findings', analyst, {
      AssetId: asset,
      Vulnerability: { Title: title, Severity: 'High' },
      Location: { Kind: 'Port', Port: port, Protocol: 'tcp' },
    });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    readOnly = await t.userWithKey('ReadOnly');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    asset = (await send('POST', '/assets', analyst, { Kind: 'Host', IpAddresses: ['10.5.0.1'] })).json().Id;
    for (const [title, port] of [
      ['OpenSSH regreSSHion', 22],
      ['Exposed Redis', 6379],
    ] as const) {
      findingIds.push((await record(title, port)).json().Id);
    }
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('opens numbered tickets for findings, resolves them when all are fixed, reopens them when one comes back', async () => {
    const res = await send('POST', '/tickets', analyst, {
      Title: 'Patch the jump host',
      Priority: 'High',
      AssigneeId: analyst.userId,
      FindingIds: findingIds,
    });
    expect(res.statusCode).toBe(201);
    const ticket = res.json();
    expect(ticket).toMatchObject({
      Number: 1,
      State: 'Open',
      Priority: 'High',
      AssigneeId: analyst.userId,
      FindingCount: 2,
      CreatedById: analyst.userId,
    });
    expect(ticket.Findings.map((f: { Id: string }) => f.Id).sort()).toEqual([...findingIds].sort());
    expect((await send('POST', '/tickets', analyst, { Title: 'Second' })).json().Number).toBe(2);

    await send('POST', `/findings/${findingIds[0]}/state`, analyst, { State: 'Fixed' });
    expect((await send('GET', `/tickets/${ticket.Id}`, readOnly)).json().State).toBe('Open');
    await send('POST', `/findings/${findingIds[1]}/state`, analyst, { State: 'Fixed' });
    const resolved = (await send('GET', `/tickets/${ticket.Id}`, readOnly)).json();
    expect(resolved.State).toBe('Resolved');
    expect(resolved.ResolvedAt).not.toBeNull();
    expect(resolved.Events.at(-1)).toMatchObject({
      ActorType: 'system',
      FromState: 'Open',
      ToState: 'Resolved',
    });

    expect((await send('PATCH', `/tickets/${ticket.Id}`, analyst, { State: 'Closed' })).json().State).toBe(
      'Closed',
    );
    // The next scan sees the Redis exposure again.
    expect((await record('Exposed Redis', 6379)).json().State).toBe('Reopened');
    const reopened = (await send('GET', `/tickets/${ticket.Id}`, readOnly)).json();
    expect(reopened).toMatchObject({ State: 'Reopened', ClosedAt: null });
  });

  it('enforces the ticket state rules', async () => {
    const ticket = (await send('POST', '/tickets', analyst, { Title: 'Rules' })).json();
    expect(
      (await send('PATCH', `/tickets/${ticket.Id}`, analyst, { State: 'InProgress' })).json().State,
    ).toBe('InProgress');
    expect((await send('PATCH', `/tickets/${ticket.Id}`, analyst, { State: 'Resolved' })).json().State).toBe(
      'Resolved',
    );
    const bad = await send('PATCH', `/tickets/${ticket.Id}`, analyst, { State: 'InProgress' });
    expect(bad.statusCode).toBe(409);
    expect(bad.json().detail).toContain('from Resolved it can become Closed, Reopened');
  });

  it('takes comments and links or unlinks findings', async () => {
    const ticket = (await send('POST', '/tickets', analyst, { Title: 'Talk' })).json();
    const commented = await send('POST', `/tickets/${ticket.Id}/comments`, analyst, {
      Body: 'Vendor says Tuesday.',
    });
    expect(commented.statusCode).toBe(201);
    expect(commented.json().Comments).toEqual([
      expect.objectContaining({ Body: 'Vendor says Tuesday.', AuthorId: analyst.userId }),
    ]);
    expect((await send('POST', `/tickets/${ticket.Id}/comments`, analyst, { Body: '' })).statusCode).toBe(
      400,
    );
    expect(
      (await send('POST', `/tickets/${ticket.Id}/findings/link`, analyst, { FindingIds: findingIds })).json(),
    ).toEqual({ Changed: 2 });
    expect(
      (await send('POST', `/tickets/${ticket.Id}/findings/link`, analyst, { FindingIds: findingIds })).json(),
    ).toEqual({ Changed: 0 });
    expect(
      (
        await send('POST', `/tickets/${ticket.Id}/findings/unlink`, analyst, { FindingIds: [findingIds[0]] })
      ).json(),
    ).toEqual({ Changed: 1 });
    expect((await send('GET', `/tickets/${ticket.Id}`, readOnly)).json().FindingCount).toBe(1);
  });

  it('refuses bad input, low roles and foreign ids', async () => {
    const ticket = (await send('POST', '/tickets', analyst, { Title: 'Guarded' })).json();
    expect((await send('POST', '/tickets', readOnly, { Title: 'x' })).statusCode).toBe(403);
    expect((await send('POST', '/tickets', analyst, { Title: '' })).statusCode).toBe(400);
    expect((await send('POST', '/tickets', analyst, { Title: 'x', Priority: 'Urgent' })).statusCode).toBe(
      400,
    );
    expect((await send('POST', '/tickets', analyst, { title: 'x' })).json().errors[0].suggestion).toBe(
      'Title',
    );
    expect(
      (await send('POST', '/tickets', analyst, { Title: 'x', AssigneeId: outsider.userId })).statusCode,
    ).toBe(404);
    const foreignFinding = await send('POST', '/tickets', analyst, {
      Title: 'x',
      FindingIds: ['01900000-0000-7000-8000-000000000000'],
    });
    expect(foreignFinding.statusCode).toBe(404);
    expect((await send('PATCH', `/tickets/${ticket.Id}`, analyst, {})).statusCode).toBe(400);
    const before = (await send('GET', '/tickets', readOnly)).json().TotalCount;

    // The other organisation sees none of it and cannot touch it.
    expect((await send('GET', `/tickets/${ticket.Id}`, outsider)).statusCode).toBe(404);
    expect((await send('PATCH', `/tickets/${ticket.Id}`, outsider, { Title: 'mine now' })).statusCode).toBe(
      404,
    );
    expect((await send('POST', `/tickets/${ticket.Id}/comments`, outsider, { Body: 'hi' })).statusCode).toBe(
      404,
    );
    expect(
      (await send('POST', '/tickets', outsider, { Title: 'steal', FindingIds: findingIds })).statusCode,
    ).toBe(404);
    const theirs = (await send('GET', '/tickets', outsider)).json();
    expect(theirs.TotalCount).toBe(0);
    expect((await send('POST', '/tickets', outsider, { Title: 'Their first' })).json().Number).toBe(1);
    expect((await send('GET', '/tickets', readOnly)).json().TotalCount).toBe(before);
  });

  it('lists with filters and keyset pages, newest first', async () => {
    const all = (await send('GET', '/tickets?PageSize=500', readOnly)).json();
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await send('GET', `/tickets?PageSize=2${cursor ? `&Cursor=${cursor}` : ''}`, readOnly);
      const page = res.json() as { Items: { Id: string }[]; NextCursor: string | null };
      paged.push(...page.Items.map((x: { Id: string }) => x.Id));
      cursor = page.NextCursor;
    } while (cursor);
    expect(paged).toEqual(all.Items.map((x: { Id: string }) => x.Id));
    expect(all.Items[0].Number).toBeGreaterThan(all.Items.at(-1).Number);
    const resolved = (await send('GET', '/tickets?State=Resolved', readOnly)).json();
    expect(resolved.Items.every((x: { State: string }) => x.State === 'Resolved')).toBe(true);
    expect(
      (await send('GET', '/tickets?Search=jump', readOnly))
        .json()
        .Items.map((x: { Title: string }) => x.Title),
    ).toEqual(['Patch the jump host']);
    expect((await send('GET', '/tickets?State=Done', readOnly)).statusCode).toBe(400);
  });
});
