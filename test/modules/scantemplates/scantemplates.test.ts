import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// Built-in scan templates, including the original's "Host Discovery [T1]", and
// an organisation's own, which only its Admins change.
const SETTINGS = {
  Ports: [22, 80, 443],
  TimeoutMs: 800,
  Retries: 1,
  MaxInFlight: 64,
  ConnectionsPerSecond: 100,
  PerHostInFlight: 2,
  ReverseDns: false,
  UseNmap: false,
};

describe.each(DB_KINDS)('scan templates [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let analyst: Credentials;
  let outsider: Credentials;

  const call = (method: string, url: string, who: Credentials, payload?: unknown, channel = 'latest') =>
    t.app.inject({
      method: method as 'GET',
      url: `/api/${channel}${url}`,
      headers: authHeaders(who),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    admin = t.admin;
    analyst = await t.userWithKey('Analyst');
    const other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Admin', other);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('lists the built-in discovery templates, "Host Discovery [T1]" first, to every role', async () => {
    for (const channel of ['latest', 'integration']) {
      const res = await call('GET', '/scantemplates?Kind=Discovery', analyst, undefined, channel);
      expect(res.statusCode).toBe(200);
      const names = res.json().Items.map((i: { Name: string }) => i.Name);
      expect(names[0]).toBe('Host Discovery [T1]');
      expect(names).toHaveLength(4);
      expect(res.json().Items[0]).toMatchObject({ BuiltIn: true, Kind: 'Discovery', CreatedAt: null });
      expect(res.json().Items[0].Settings.Ports).toContain(22);
    }
    const systems = await call('GET', '/scantemplates?Kind=System', analyst);
    expect(systems.json().Items.map((i: { Name: string }) => i.Name)).toEqual([
      'System scan, well-known ports [S1]',
      'System scan, all ports [S2]',
      'System scan with nmap -sV [S3]',
    ]);
    expect(systems.json().Items[0].Settings).toMatchObject({
      Ports: 'top1000',
      ServiceDetection: true,
      TlsChecks: true,
      SafeChecks: true,
      UseNmapVersionDetection: false,
    });
    expect(systems.json().Items[1].Settings.Ports).toBe('all');
    expect(systems.json().Items[2].Settings.UseNmapVersionDetection).toBe(true);
    const webs = await call('GET', '/scantemplates?Kind=Web', analyst);
    expect(webs.json().Items).toEqual([
      expect.objectContaining({ Name: 'Web scan [W1]', Kind: 'Web', BuiltIn: true }),
    ]);
    const one = await call('GET', `/scantemplates/${systems.json().Items[0].Id}`, analyst);
    expect(one.json()).toMatchObject({ Kind: 'System', Name: 'System scan, well-known ports [S1]' });
    for (const [path, kind] of [
      ['/scantemplates/systemscan/simple', 'System'],
      ['/scantemplates/webscan/simple', 'Web'],
    ] as const) {
      const simple = await call('GET', path, analyst, undefined, 'integration');
      const listed = (await call('GET', `/scantemplates?Kind=${kind}`, analyst)).json().Items;
      expect(simple.json()).toEqual(
        listed.map((i: { Name: string; Id: string }) => ({ Name: i.Name, Id: i.Id })),
      );
    }
  });

  it('lets an Admin create system and web templates, settings checked for their kind', async () => {
    const system = {
      Ports: '22,80,8000-8100',
      TimeoutMs: 1000,
      Retries: 0,
      MaxInFlight: 64,
      ConnectionsPerSecond: 100,
      PerHostInFlight: 4,
      PortBudgetMs: 10_000,
      HostBudgetMs: 60_000,
      RunBudgetMs: 600_000,
      ServiceDetection: true,
      TlsChecks: false,
      SafeChecks: true,
      UseNmapVersionDetection: false,
    };
    const created = await call('POST', '/scantemplates', admin, {
      Kind: 'System',
      Name: 'Quick',
      Settings: system,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ Kind: 'System', BuiltIn: false, Settings: system });

    const bad = async (body: Record<string, unknown>, pointer: string) => {
      const res = await call('POST', '/scantemplates', admin, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(JSON.stringify(res.json()), res.body).toContain(pointer);
    };
    await bad({ Kind: 'System', Name: 'P', Settings: { ...system, Ports: '0-10' } }, '/Settings/Ports');
    await bad({ Kind: 'System', Name: 'P', Settings: { ...system, Ports: 'everything' } }, '/Settings/Ports');
    await bad(
      { Kind: 'System', Name: 'P', Settings: { ...system, PortBudgetMs: 120_000 } },
      '/Settings/PortBudgetMs',
    );
    await bad(
      { Kind: 'System', Name: 'P', Settings: { ...system, HostBudgetMs: 6_000_000 } },
      '/Settings/HostBudgetMs',
    );
    await bad({ Kind: 'System', Name: 'P', Settings: { TimeoutMs: 1000 } }, '/Settings');
    await bad({ Kind: 'Web', Name: 'P', Settings: system }, '/Settings');
    const web = {
      RequestTimeoutMs: 5000,
      UrlBudgetMs: 60_000,
      RunBudgetMs: 600_000,
      RequestsPerSecond: 2,
      TlsChecks: true,
      HeaderChecks: true,
      ExposedFiles: false,
    };
    await bad(
      { Kind: 'Web', Name: 'P', Settings: { ...web, RequestTimeoutMs: 90_000 } },
      '/Settings/RequestTimeoutMs',
    );
    const w = await call('POST', '/scantemplates', admin, { Kind: 'Web', Name: 'Gentle web', Settings: web });
    expect(w.statusCode, w.body).toBe(201);
    const change = await call('PUT', `/scantemplates/${w.json().Id}`, admin, {
      Kind: 'System',
      Name: 'X',
      Settings: system,
    });
    expect(change.statusCode).toBe(400);
    expect(change.json().errors[0].path).toBe('/Kind');
  });

  it('checks Settings against its own Kind only: errors of an over-long port list name that kind alone', async () => {
    const tooMany = Array.from({ length: 1025 }, (_, i) => i + 1);
    const res = await call('POST', '/scantemplates', admin, {
      Name: 'Too many',
      Settings: { ...SETTINGS, Ports: tooMany },
    });
    expect(res.statusCode, res.body).toBe(400);
    const problem = res.json();
    expect(problem.detail).toBe('body /Settings/Ports: must NOT have more than 1024 items');
    expect(problem.errors.map((e: { path: string }) => e.path)).toEqual(['/Settings/Ports']);
    // The same for a System template's over-long port text, and a Kind that is not one.
    const system = await call('POST', '/scantemplates', admin, {
      Kind: 'System',
      Name: 'Long text',
      Settings: { Ports: '1,'.repeat(2500), TimeoutMs: 1000 },
    });
    expect(system.statusCode, system.body).toBe(400);
    const paths = system.json().errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('/Settings/Ports');
    expect(paths.every((p: string) => p.startsWith('/Settings'))).toBe(true);
    expect(system.body).not.toMatch(/ReverseDns|RequestTimeoutMs/);
    const web = await call('POST', '/scantemplates', admin, { Kind: 'Web', Name: 'Empty', Settings: {} });
    expect(web.statusCode).toBe(400);
    expect(web.body).toContain('RequestTimeoutMs');
    expect(web.body).not.toMatch(/ReverseDns|PortBudgetMs/);
    const nope = await call('POST', '/scantemplates', admin, { Kind: 'Nope', Name: 'N', Settings: SETTINGS });
    expect(nope.statusCode).toBe(400);
    expect(nope.json().errors[0].path).toBe('/Kind');
  });

  it('lets an Admin create, change and delete a template of their own, in their organisation only', async () => {
    const created = await call('POST', '/scantemplates', admin, { Name: 'Lab sweep', Settings: SETTINGS });
    expect(created.statusCode).toBe(201);
    const id = created.json().Id;
    expect(created.json()).toMatchObject({
      Name: 'Lab sweep',
      BuiltIn: false,
      Kind: 'Discovery',
      Settings: SETTINGS,
    });

    const changed = await call('PUT', `/scantemplates/${id}`, admin, {
      Name: 'Lab sweep 2',
      Description: 'two ports',
      Settings: { ...SETTINGS, Ports: [22, 80] },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ Name: 'Lab sweep 2', Description: 'two ports' });
    expect(changed.json().Settings.Ports).toEqual([22, 80]);

    expect((await call('GET', `/scantemplates/${id}`, outsider)).statusCode).toBe(404);
    expect(
      (await call('PUT', `/scantemplates/${id}`, outsider, { Name: 'x', Settings: SETTINGS })).statusCode,
    ).toBe(404);
    const theirs = await call('GET', '/scantemplates', outsider);
    expect(theirs.json().Items.map((i: { Id: string }) => i.Id)).not.toContain(id);

    expect((await call('DELETE', `/scantemplates/${id}`, admin)).statusCode).toBe(204);
    expect((await call('GET', `/scantemplates/${id}`, admin)).statusCode).toBe(404);
  });

  it('refuses what is not an Admin’s, a built-in template, a duplicate name and bad settings, naming the field', async () => {
    expect(
      (await call('POST', '/scantemplates', analyst, { Name: 'x', Settings: SETTINGS })).statusCode,
    ).toBe(403);
    const builtIn = (await call('GET', '/scantemplates', admin)).json().Items[0];
    const put = await call('PUT', `/scantemplates/${builtIn.Id}`, admin, {
      Name: 'mine',
      Settings: SETTINGS,
    });
    expect(put.statusCode).toBe(409);
    expect(put.json().detail).toContain('built-in');
    expect((await call('DELETE', `/scantemplates/${builtIn.Id}`, admin)).statusCode).toBe(409);
    const sameAsBuiltIn = await call('POST', '/scantemplates', admin, {
      Name: 'host discovery [t1]',
      Settings: SETTINGS,
    });
    expect(sameAsBuiltIn.statusCode).toBe(409);
    await call('POST', '/scantemplates', admin, { Name: 'Twice', Settings: SETTINGS });
    expect(
      (await call('POST', '/scantemplates', admin, { Name: 'twice', Settings: SETTINGS })).statusCode,
    ).toBe(409);

    const bad: [object, string][] = [
      [{ Name: 'a', Settings: { ...SETTINGS, Ports: [] } }, 'Ports'],
      [{ Name: 'a', Settings: { ...SETTINGS, Ports: [0] } }, 'Ports'],
      [{ Name: 'a', Settings: { ...SETTINGS, Ports: [70000] } }, 'Ports'],
      [{ Name: 'a', Settings: { ...SETTINGS, Ports: [22, 22] } }, 'Ports'],
      [{ Name: 'a', Settings: { ...SETTINGS, TimeoutMs: 5 } }, 'TimeoutMs'],
      [{ Name: 'a', Settings: { ...SETTINGS, ConnectionsPerSecond: 1_000_000 } }, 'ConnectionsPerSecond'],
      [{ Name: 'a', Settings: { ...SETTINGS, PerHostInFlight: 8, MaxInFlight: 4 } }, 'PerHostInFlight'],
      [{ Name: 'a', Settings: { ...SETTINGS, Surprise: 1 } }, 'Surprise'],
      [{ Name: '', Settings: SETTINGS }, 'Name'],
      [{ Name: '   ', Settings: SETTINGS }, 'Name'],
      [{ Settings: SETTINGS }, 'Name'],
    ];
    for (const [body, field] of bad) {
      const res = await call('POST', '/scantemplates', admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.stringify(res.json()), JSON.stringify(body)).toContain(field);
    }
    expect((await call('GET', '/scantemplates/not-a-uuid', admin)).statusCode).toBe(400);
    expect((await call('GET', '/scantemplates?Kind=Nope', admin)).statusCode).toBe(400);
  });
});
