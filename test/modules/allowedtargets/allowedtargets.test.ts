import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowedTargetRepository } from '../../../src/modules/allowedtargets/repository.js';
import { AllowedTargetsService } from '../../../src/modules/allowedtargets/service.js';
import { AppError } from '../../../src/problems/app-error.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

type Method = 'GET' | 'POST' | 'DELETE';

describe.each(DB_KINDS)('allowed scan targets [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let reader: Credentials;
  let outsider: Credentials;
  let otherOrgId: string;

  const call = (who: Credentials | null, method: Method, url: string, body?: unknown, channel = 'latest') =>
    t.app.inject({
      method,
      url: `/api/${channel}${url}`,
      headers: {
        ...(who ? authHeaders(who) : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const add = (who: Credentials, body: unknown, channel = 'latest') =>
    call(who, 'POST', '/allowedtargets', body, channel);
  const check = (who: Credentials, body: unknown) => call(who, 'POST', '/allowedtargets/check', body);
  const ctx = () => ({ organizationId: t.org.id, actor: { type: 'system' as const, id: null } });

  const expectRefused = (
    res: Awaited<ReturnType<typeof call>>,
    status: number,
    slug: string,
    path?: string,
    words?: string,
  ) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json();
    expect(problem.type).toMatch(new RegExp(`/problems/${slug}$`));
    if (path) expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
    if (words) expect(problem.detail).toContain(words);
    return problem;
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    reader = await t.userWithKey('ReadOnly');
    const other = await t.services.organizations.create('Other');
    otherOrgId = other.id;
    outsider = await t.userWithKey('Admin', other);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('starts empty: nothing may be scanned until an Admin allows a range', async () => {
    const list = await call(reader, 'GET', '/allowedtargets');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ Items: [], NextCursor: null, TotalCount: 0 });
    expect(await t.services.allowedTargets.policy(t.org.id)).toEqual({
      allowed: [],
      excluded: [],
      allowLoopback: false,
    });
    const verdict = await check(reader, { Targets: [{ Range: '198.18.0.1' }] });
    expect(verdict.json().Items[0]).toMatchObject({ Allowed: false, Rule: 'NotAllowed' });
    expect(verdict.json().Items[0].Message).toContain('Allowed scan targets');
  });

  it('lets an Admin allow and exclude targets, stored in canonical form, in both channels, and audited', async () => {
    const allowed = await add(admin, {
      Kind: 'Allowed',
      Target: ' 198.18.0.0-198.18.0.255 ',
      Description: 'Lab',
    });
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect(allowed.json()).toEqual({
      Id: expect.any(String),
      Kind: 'Allowed',
      Target: '198.18.0.0/24',
      Description: 'Lab',
      AddressCount: 256,
      CreatedAt: t.clock.now.toISOString(),
    });
    t.clock.now = new Date(t.clock.now.getTime() + 1000);
    const wildcard = await add(admin, { Kind: 'Allowed', Target: '*.Lab.Example.com' }, 'integration');
    expect(wildcard.statusCode, wildcard.body).toBe(201);
    expect(wildcard.json()).toMatchObject({
      Target: '*.lab.example.com',
      Description: null,
      AddressCount: null,
    });
    t.clock.now = new Date(t.clock.now.getTime() + 1000);
    const excluded = await add(admin, { Kind: 'Excluded', Target: '198.18.0.7' });
    expect(excluded.json()).toMatchObject({ Kind: 'Excluded', Target: '198.18.0.7', AddressCount: 1 });

    const list = (await call(reader, 'GET', '/allowedtargets', undefined, 'integration')).json();
    expect(list.TotalCount).toBe(3);
    expect(list.Items.map((i: { Target: string }) => i.Target)).toEqual([
      '198.18.0.7',
      '*.lab.example.com',
      '198.18.0.0/24',
    ]);
    expect(await t.services.allowedTargets.policy(t.org.id)).toEqual({
      allowed: ['*.lab.example.com', '198.18.0.0/24'],
      excluded: ['198.18.0.7'],
      allowLoopback: false,
    });
    const audit = await t.services.audit.listRecent(t.org.id);
    const created = audit.filter((e) => e.action === 'allowedtarget.created');
    expect(created.map((e) => e.target_id).sort()).toEqual(
      [allowed.json().Id, wildcard.json().Id, excluded.json().Id].sort(),
    );
    expect(created.find((e) => e.target_id === allowed.json().Id)?.details).toEqual({
      kind: 'Allowed',
      target: '198.18.0.0/24',
    });
  });

  it('pages the list with NextCursor and refuses a forged cursor', async () => {
    const first = (await call(reader, 'GET', '/allowedtargets?PageSize=2')).json();
    expect(first.Items).toHaveLength(2);
    expect(first.NextCursor).toEqual(expect.any(String));
    const second = (
      await call(reader, 'GET', `/allowedtargets?PageSize=2&Cursor=${encodeURIComponent(first.NextCursor)}`)
    ).json();
    expect(second.Items).toHaveLength(1);
    expect(second.NextCursor).toBeNull();
    expect(second.TotalCount).toBe(3);
    expectRefused(await call(reader, 'GET', '/allowedtargets?Cursor=forged'), 400, 'validation-failed');
    expectRefused(await call(reader, 'GET', '/allowedtargets?PageSize=0'), 400, 'validation-failed');
    expectRefused(await call(reader, 'GET', '/allowedtargets?PageSize=1001'), 400, 'validation-failed');
  });

  it('answers 409 when the entry exists, however it is written', async () => {
    const again = await add(admin, { Kind: 'Allowed', Target: '198.18.0.0/24' });
    expectRefused(again, 409, 'conflict', undefined, '198.18.0.0/24 is already allowed');
    expectRefused(await add(admin, { Kind: 'Allowed', Target: '198.18.0.0-255' }), 409, 'conflict');
    // The same text as the other kind is another entry.
    const other = await add(admin, { Kind: 'Excluded', Target: '198.18.0.0/24' });
    expect(other.statusCode).toBe(201);
    expect((await call(admin, 'DELETE', `/allowedtargets/${other.json().Id}`)).statusCode).toBe(204);
  });

  it.each([
    ['10.0.0.0/33', 'Syntax', 'invalid prefix length'],
    ['10.0.0.5/24', 'Syntax', 'did you mean 10.0.0.0/24?'],
    ['not a target', 'Syntax', 'neither an address'],
    ['10.0.0.9-10.0.0.1', 'Syntax', 'ends before it starts'],
    ['198.18.0.0/15', 'TooLarge', '131,072 addresses'],
    ['169.254.169.254', 'AlwaysRefused', 'cloud metadata address'],
    ['::ffff:169.254.169.254', 'AlwaysRefused', 'cloud metadata address'],
    ['224.0.0.0/24', 'AlwaysRefused', 'multicast'],
    ['0.0.0.0', 'AlwaysRefused', 'unspecified'],
    ['255.255.255.255', 'AlwaysRefused', 'broadcast'],
    ['fe80::/64', 'TooLarge', 'addresses'],
    ['fe80::1', 'AlwaysRefused', 'IPv6 link-local'],
    ['127.0.0.1', 'Loopback', 'RAMPART_SCAN_ALLOW_LOOPBACK=true'],
    // Names that mean loopback are refused like its addresses.
    ['localhost', 'Loopback', 'localhost names the loopback address'],
    ['localhost.', 'Loopback', 'RAMPART_SCAN_ALLOW_LOOPBACK=true'],
    ['ip6-localhost', 'Loopback', 'loopback'],
    ['api.localhost', 'Loopback', 'RFC 6761'],
    ['*.localhost', 'Loopback', 'loopback'],
  ])('refuses to allow %s (422 naming /Target, rule %s)', async (target, rule, words) => {
    const res = await add(admin, { Kind: 'Allowed', Target: target });
    const problem = expectRefused(res, 422, 'scan-target-refused', '/Target', words);
    expect(problem.errors[0].message).toMatch(new RegExp(`^${rule}: `));
    expect(problem.detail).toContain(`(${rule})`);
  });

  it('lets exclusions be wide or always refused (excluding never lets a packet through), but not malformed', async () => {
    const wide = await add(admin, { Kind: 'Excluded', Target: '10.0.0.0/8' });
    expect(wide.json()).toMatchObject({ Target: '10.0.0.0/8', AddressCount: 16777216 });
    expect((await call(admin, 'DELETE', `/allowedtargets/${wide.json().Id}`)).statusCode).toBe(204);
    expectRefused(
      await add(admin, { Kind: 'Excluded', Target: '10.0.0.' }),
      422,
      'scan-target-refused',
      '/Target',
    );
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ Kind: 'Maybe', Target: '198.18.1.0/24' }, 'Kind'],
      [{ Kind: 'Allowed' }, 'Target'],
      [{ Kind: 'Allowed', Target: '' }, 'Target'],
      [{ Kind: 'Allowed', Target: 'x'.repeat(301) }, 'Target'],
      [{ Kind: 'Allowed', Target: '198.18.1.0/24', Description: 'd'.repeat(501) }, 'Description'],
      [{ Kind: 'Allowed', Target: '198.18.1.0/24', target: 'x' }, 'target'],
    ] as const) {
      const res = await add(admin, body);
      const problem = expectRefused(res, 400, 'validation-failed');
      expect(problem.detail, JSON.stringify(body)).toContain(field);
    }
    expectRefused(await call(admin, 'DELETE', '/allowedtargets/not-a-uuid'), 400, 'validation-failed');
  });

  it('keeps changes to Admins; every signed-in role reads and checks', async () => {
    for (const who of [manager, reader]) {
      expectRefused(await add(who, { Kind: 'Allowed', Target: '198.18.9.0/24' }), 403, 'forbidden');
      const [entry] = (await call(who, 'GET', '/allowedtargets')).json().Items;
      expectRefused(await call(who, 'DELETE', `/allowedtargets/${entry.Id}`), 403, 'forbidden');
      expect((await check(who, { Targets: [{ Range: '198.18.0.1' }] })).statusCode).toBe(200);
    }
    expectRefused(await call(null, 'GET', '/allowedtargets'), 401, 'unauthenticated');
    expectRefused(
      await check({ accessKey: 'x', secretKey: 'y', userId: '', apiKeyId: '' }, {}),
      401,
      'unauthenticated',
    );
  });

  it('keeps organisations apart: lists, policies, checks and deletes', async () => {
    const mine = (await call(admin, 'GET', '/allowedtargets')).json().Items;
    const theirs = await call(outsider, 'GET', '/allowedtargets');
    expect(theirs.json()).toEqual({ Items: [], NextCursor: null, TotalCount: 0 });
    for (const entry of mine)
      expectRefused(await call(outsider, 'DELETE', `/allowedtargets/${entry.Id}`), 404, 'not-found');
    expect((await call(admin, 'GET', '/allowedtargets')).json().TotalCount).toBe(mine.length);
    expect((await t.services.allowedTargets.policy(otherOrgId)).allowed).toEqual([]);
    const verdict = (await check(outsider, { Targets: [{ Range: '198.18.0.1' }] })).json();
    expect(verdict.Items[0]).toMatchObject({ Allowed: false, Rule: 'NotAllowed' });
    // The same text is a separate entry in another organisation.
    expect((await add(outsider, { Kind: 'Allowed', Target: '198.18.0.0/24' })).statusCode).toBe(201);
  });

  it('checks scan targets one by one for the new-scan page, with address counts', async () => {
    const res = await check(reader, {
      Targets: [
        { Range: '198.18.0.0/24', Name: 'lab', Exclude: ['198.18.0.200-198.18.0.254'] },
        { Range: '198.18.0.1-198.18.0.10' },
        { Range: 'db.lab.example.com' },
        { Range: '198.18.0.7' },
        { Range: '198.18.1.0/24' },
        { Range: '169.254.169.254' },
        { Range: '198.18.0.0/15' },
        { Range: '10.0.0.0/33' },
        { Range: '198.18.0.0/28', Exclude: ['nonsense!'] },
        { Range: '*.lab.example.com' },
      ],
      Exclusions: ['198.18.0.100'],
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const verdicts = body.Items.map((i: { Range: string; Allowed: boolean; Rule: string | null }) => [
      i.Range,
      i.Allowed,
      i.Rule,
    ]);
    expect(verdicts).toEqual([
      ['198.18.0.0/24', true, null],
      ['198.18.0.1-198.18.0.10', true, null],
      ['db.lab.example.com', true, null],
      ['198.18.0.7', false, 'Excluded'],
      ['198.18.1.0/24', false, 'NotAllowed'],
      ['169.254.169.254', false, 'AlwaysRefused'],
      ['198.18.0.0/15', false, 'TooLarge'],
      ['10.0.0.0/33', false, 'Syntax'],
      ['198.18.0.0/28', false, 'Syntax'],
      ['*.lab.example.com', false, 'Syntax'],
    ]);
    // 254 addresses, less the target's 55 and the scan's one.
    expect(body.Items[0]).toMatchObject({ AddressCount: 198, Message: null });
    expect(body.Items[1].AddressCount).toBe(10);
    expect(body.Items[2].AddressCount).toBe(1);
    expect(body.Items[4].Message).toBe('198.18.1.0/24 is not inside the allowed scan targets.');
    expect(body.Items[7].AddressCount).toBe(0);
    expect(body.Items[8].Message).toContain('nonsense!');
    // Together, each address once: the /15 holds every other range (its 131,070 addresses less the
    // scan's exclusion), plus the metadata address and the host name.
    expect(body.AddressCount).toBe(131070 - 1 + 1 + 1);
  });

  it('refuses a malformed scan-wide exclusion and bad check bodies', async () => {
    const res = await check(reader, {
      Targets: [{ Range: '198.18.0.1' }],
      Exclusions: ['198.18.0.1', 'bad..name'],
    });
    expectRefused(res, 422, 'scan-target-refused', '/Exclusions/1');
    expectRefused(await check(reader, { Targets: [] }), 400, 'validation-failed');
    expectRefused(await check(reader, { Targets: [{ range: '198.18.0.1' }] }), 400, 'validation-failed');
    expectRefused(await check(reader, {}), 400, 'validation-failed');
  });

  it('assertAllowed passes allowed scans and names each refused target by pointer and rule', async () => {
    const service = t.services.allowedTargets;
    await expect(
      service.assertAllowed(ctx(), [{ range: '198.18.0.0/24' }, { range: 'db.lab.example.com' }], []),
    ).resolves.toBeUndefined();
    // Only the excluded part of a target lies outside the allowed ranges.
    await expect(
      service.assertAllowed(ctx(), [{ range: '198.18.0.0/23', exclude: ['198.18.1.0/24'] }], []),
    ).resolves.toBeUndefined();
    await expect(
      service.assertAllowed(ctx(), [{ range: '198.18.0.0/23' }], ['198.18.1.0/24']),
    ).resolves.toBeUndefined();

    let error: unknown;
    try {
      await service.assertAllowed(
        ctx(),
        [
          { range: '198.18.0.0/24' },
          { range: '169.254.169.254' },
          { range: '198.18.0.0/28', exclude: ['198.18.0.1', 'oops!'] },
          { range: '198.19.0.0/24' },
        ],
        ['bad..name'],
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.problem.slug).toBe('scan-target-refused');
    expect(appError.problem.status).toBe(422);
    expect(appError.fields.map((f) => `/${f.field.join('/')}`)).toEqual([
      '/exclusions/0',
      '/scanTargets/1/range',
      '/scanTargets/2/exclude/1',
      '/scanTargets/3/range',
    ]);
    expect(appError.fields[1]!.message).toMatch(
      /^AlwaysRefused: 169\.254\.169\.254 is in the link-local block/,
    );
    expect(appError.fields[3]!.message).toBe(
      'NotAllowed: 198.19.0.0/24 is not inside the allowed scan targets.',
    );
    expect(appError.detail).toMatch(/^4 targets are refused: /);
    expect(appError.detail).toContain('(AlwaysRefused)');
    expect(appError.detail).toContain('(NotAllowed)');

    await expect(service.assertAllowed(ctx(), [], [])).rejects.toMatchObject({
      fields: [{ field: ['scanTargets'], message: 'NotAllowed: A scan needs at least one target.' }],
    });
  });

  it('removes entries (Admin), audited; an unknown id answers 404', async () => {
    const entry = (await add(admin, { Kind: 'Allowed', Target: '198.18.5.0/24' })).json();
    const removed = await call(admin, 'DELETE', `/allowedtargets/${entry.Id}`, undefined, 'integration');
    expect(removed.statusCode).toBe(204);
    expectRefused(await call(admin, 'DELETE', `/allowedtargets/${entry.Id}`), 404, 'not-found');
    const audit = await t.services.audit.listRecent(t.org.id);
    expect(
      audit.find((e) => e.action === 'allowedtarget.deleted' && e.target_id === entry.Id)?.details,
    ).toEqual({
      kind: 'Allowed',
      target: '198.18.5.0/24',
    });
    expect((await t.services.allowedTargets.policy(t.org.id)).allowed).not.toContain('198.18.5.0/24');
  });
});

describe.each(DB_KINDS)('allowed scan targets with RAMPART_SCAN_ALLOW_LOOPBACK=true [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_SCAN_ALLOW_LOOPBACK: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('lets an Admin allow loopback, and the policy carries the switch to the node', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/allowedtargets',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: JSON.stringify({ Kind: 'Allowed', Target: '127.0.0.0/16' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await t.services.allowedTargets.policy(t.org.id)).toEqual({
      allowed: ['127.0.0.0/16'],
      excluded: [],
      allowLoopback: true,
    });
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    await expect(
      t.services.allowedTargets.assertAllowed(ctx, [{ range: '127.0.0.1' }], []),
    ).resolves.toBeUndefined();
    // The metadata address stays refused whatever the switch says.
    await expect(
      t.services.allowedTargets.assertAllowed(ctx, [{ range: '169.254.169.254' }], []),
    ).rejects.toMatchObject({ fields: [{ field: ['scanTargets', '0', 'range'] }] });
  });
});

// A host name whose addresses are loopback is refused when the scan is saved,
// as `localhost` is; a name that does not resolve (yet) is left to the node, which names it.
describe.each(DB_KINDS)('scan targets that resolve to loopback [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const names: Record<string, string[]> = {
    'db.lab.example.com': ['127.0.0.1'],
    'six.lab.example.com': ['198.18.7.1', '::1'],
    'web.lab.example.com': ['198.18.7.2'],
  };
  // DNS stands in for the organisation's resolver: the test decides what each name resolves to.
  const resolve = async (name: string): Promise<string[]> => {
    const found = names[name];
    if (!found) throw new Error(`${name}: no such name`);
    return found;
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('refuses a name that resolves to loopback on save, naming the address; lets the others through', async () => {
    const service = new AllowedTargetsService(
      new AllowedTargetRepository(tdb.database.db),
      t.services.audit,
      t.clock.fn,
      {
        allowLoopback: false,
        resolve,
      },
    );
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    await service.create(ctx, { kind: 'Allowed', target: '*.lab.example.com' });
    await expect(service.assertAllowed(ctx, [{ range: 'web.lab.example.com' }], [])).resolves.toBeUndefined();
    await expect(
      service.assertAllowed(ctx, [{ range: 'gone.lab.example.com' }], []),
    ).resolves.toBeUndefined();
    const refusal = await service
      .assertAllowed(
        ctx,
        [{ range: 'web.lab.example.com' }, { range: 'db.lab.example.com' }, { range: 'six.lab.example.com' }],
        [],
      )
      .catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).fields).toEqual([
      {
        field: ['scanTargets', '1', 'range'],
        message:
          'Loopback: db.lab.example.com resolves to 127.0.0.1, a loopback address, which is scanned only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true.',
      },
      {
        field: ['scanTargets', '2', 'range'],
        message:
          'Loopback: six.lab.example.com resolves to ::1, a loopback address, which is scanned only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true.',
      },
    ]);
    // Where the server allows loopback, the name is judged like any other.
    const open = new AllowedTargetsService(
      new AllowedTargetRepository(tdb.database.db),
      t.services.audit,
      t.clock.fn,
      {
        allowLoopback: true,
        resolve,
      },
    );
    await expect(open.assertAllowed(ctx, [{ range: 'db.lab.example.com' }], [])).resolves.toBeUndefined();
  });
});
