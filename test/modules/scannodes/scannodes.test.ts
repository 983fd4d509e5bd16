import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode, expectBadRequest } from '../../helpers/scan-nodes.js';

describe.each(DB_KINDS)('scan nodes: enrolment, keys, heartbeats, revocation [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let analyst: Credentials;
  let outsider: Credentials;

  const seconds = (s: number) => {
    t.clock.now = new Date(t.clock.now.getTime() + s * 1000);
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_LOCAL_SCAN_NODE: 'false' } });
    admin = t.admin;
    analyst = await t.userWithKey('Analyst');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('gives an Admin a one-time token with the command to run, and refuses other roles and bad input', async () => {
    const res = await apiCall(t, 'POST', '/scannodes/enrolments', {
      who: admin,
      body: { ExpiresInHours: 2 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.Token).toMatch(/^rse_[A-Za-z0-9_-]{43}$/);
    expect(body.Command).toBe(`rampart scan-node --server ${t.config.baseUrl} --token ${body.Token}`);
    expect(new Date(body.ExpiresAt).getTime()).toBe(t.clock.now.getTime() + 2 * 3600_000);
    // Only the token's hash is kept.
    const rows = await tdb.database.db.selectFrom('scan_node_enrolments').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(body.Token);

    expect((await apiCall(t, 'POST', '/scannodes/enrolments', { who: analyst, body: {} })).statusCode).toBe(
      403,
    );
    expect((await apiCall(t, 'POST', '/scannodes/enrolments', { body: {} })).statusCode).toBe(401);
    expectBadRequest(
      await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: { ExpiresInHours: 0 } }),
      'ExpiresInHours',
    );
    expectBadRequest(
      await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: { ExpiresInHours: 169 } }),
      'ExpiresInHours',
    );
    expectBadRequest(
      await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: { Other: 1 } }),
      'Other',
    );
  });

  it('enrols once per token: the key is shown once and kept as its SHA-256; a reused or expired token is refused', async () => {
    const token = (await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: {} })).json().Token;
    const enrol = (body: Record<string, unknown>) => apiCall(t, 'POST', '/scannodes/enrol', { body });
    const first = await enrol({
      Token: token,
      Name: 'dmz-1',
      Kinds: ['Discovery'],
      Version: '9.9.9',
      Capacity: 3,
    });
    expect(first.statusCode, first.body).toBe(201);
    const { NodeId, NodeKey, OrganizationId } = first.json();
    expect(NodeKey).toMatch(/^rsn_[A-Za-z0-9_-]{43}$/);
    expect(OrganizationId).toBe(t.org.id);

    const row = await tdb.database.db
      .selectFrom('scan_nodes')
      .selectAll()
      .where('id', '=', NodeId)
      .executeTakeFirstOrThrow();
    expect(Buffer.from(row.key_hash!).equals(createHash('sha256').update(NodeKey).digest())).toBe(true);
    expect(JSON.stringify(row)).not.toContain(NodeKey);
    expect(row).toMatchObject({
      organization_id: t.org.id,
      name: 'dmz-1',
      kinds: ['Discovery'],
      version: '9.9.9',
      capacity: 3,
    });

    const again = await enrol({ Token: token, Name: 'dmz-2' });
    expect(again.statusCode).toBe(401);
    expect(again.json().detail).toContain('already used or expired');

    const late = (
      await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: { ExpiresInHours: 1 } })
    ).json().Token;
    seconds(3601);
    expect((await enrol({ Token: late })).statusCode).toBe(401);
    expect((await enrol({ Token: 'rse_not-a-token' })).statusCode).toBe(401);

    const fresh = (await apiCall(t, 'POST', '/scannodes/enrolments', { who: admin, body: {} })).json().Token;
    expectBadRequest(await enrol({ Token: fresh, Kinds: ['Nmap'] }), 'Kinds');
    expectBadRequest(await enrol({ Token: fresh, Capacity: 0 }), 'Capacity');
    expectBadRequest(await enrol({ Token: fresh, Name: '' }), 'Name');
    expectBadRequest(await enrol({ Name: 'no token' }), 'Token');
    // Refused input did not use the token up.
    expect((await enrol({ Token: fresh })).statusCode).toBe(201);
  });

  it('is Online while heartbeats come, Offline 60 s after the last one by the app clock', async () => {
    const { nodeId, nodeKey } = await enrolNode(t, admin);
    const listed = async () =>
      (await apiCall(t, 'GET', '/scannodes', { who: admin }))
        .json()
        .Items.find((n: { Id: string }) => n.Id === nodeId);
    expect((await listed()).State).toBe('Offline');

    const beat = await apiCall(t, 'POST', '/scannodes/heartbeat', {
      nodeKey,
      body: { Version: '1.2.3', Capacity: 2 },
    });
    expect(beat.statusCode, beat.body).toBe(200);
    expect(beat.json()).toEqual({
      NodeId: nodeId,
      State: 'Online',
      StopRunIds: [],
      LostRunIds: [],
      LeaseSeconds: 60,
    });
    expect(await listed()).toMatchObject({
      State: 'Online',
      Version: '1.2.3',
      Capacity: 2,
      Kinds: ['Discovery'],
      LastHeartbeatAt: t.clock.now.toISOString(),
      Local: false,
      RevokedAt: null,
    });
    seconds(59);
    expect((await listed()).State).toBe('Online');
    seconds(1);
    expect((await listed()).State).toBe('Offline');
    const one = await apiCall(t, 'GET', `/scannodes/${nodeId}`, { who: admin, channel: 'integration' });
    expect(one.json()).toMatchObject({ Id: nodeId, State: 'Offline' });

    expectBadRequest(
      await apiCall(t, 'POST', '/scannodes/heartbeat', { nodeKey, body: { RunIds: ['x'] } }),
      'RunIds',
    );
    expectBadRequest(
      await apiCall(t, 'POST', '/scannodes/heartbeat', { nodeKey, body: { Capacity: 65 } }),
      'Capacity',
    );
  });

  it('accepts only a node key on the node protocol: none, a wrong one or user credentials get 401', async () => {
    for (const options of [
      {},
      { nodeKey: 'rsn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      { nodeKey: 'garbage' },
      { who: admin },
    ]) {
      const res = await apiCall(t, 'POST', '/scannodes/heartbeat', { ...options, body: {} });
      expect(res.statusCode, JSON.stringify(options)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json().detail).toContain('scan node key');
    }
    // …and a node key is no user credential.
    const { nodeKey } = await enrolNode(t, admin);
    expect((await apiCall(t, 'GET', '/scannodes', { nodeKey })).statusCode).toBe(401);
  });

  it('revokes a node at once; another organisation neither sees nor revokes it', async () => {
    const { nodeId, nodeKey } = await enrolNode(t, admin);
    expect((await apiCall(t, 'GET', `/scannodes/${nodeId}`, { who: outsider })).statusCode).toBe(404);
    expect((await apiCall(t, 'DELETE', `/scannodes/${nodeId}`, { who: outsider })).statusCode).toBe(404);
    expect((await apiCall(t, 'GET', '/scannodes', { who: outsider })).json().Items).toEqual([]);
    expect((await apiCall(t, 'DELETE', `/scannodes/${nodeId}`, { who: analyst })).statusCode).toBe(403);

    const revoked = await apiCall(t, 'DELETE', `/scannodes/${nodeId}`, { who: admin });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      Id: nodeId,
      RevokedAt: t.clock.now.toISOString(),
      State: 'Offline',
    });
    expect((await apiCall(t, 'POST', '/scannodes/heartbeat', { nodeKey, body: {} })).statusCode).toBe(401);
    expect((await apiCall(t, 'POST', '/scanruns/claim', { nodeKey, body: {} })).statusCode).toBe(401);
    expectBadRequest(await apiCall(t, 'DELETE', '/scannodes/not-a-uuid', { who: admin }), 'Id');
  });

  it('lists the local node in every organisation and refuses to revoke it', async () => {
    const local = await t.services.scanNodes.ensureLocal({
      kinds: ['Discovery'],
      version: 'test',
      capacity: 2,
    });
    expect(local).toMatchObject({ organizationId: null, local: true, name: 'local' });
    for (const who of [admin, outsider]) {
      const items = (await apiCall(t, 'GET', '/scannodes', { who })).json().Items;
      expect(items[0]).toMatchObject({ Id: local.id, Local: true });
    }
    const res = await apiCall(t, 'DELETE', `/scannodes/${local.id}`, { who: admin });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain('RAMPART_LOCAL_SCAN_NODE=false');
    // Made once: a second start finds it.
    expect((await t.services.scanNodes.ensureLocal({ kinds: [], version: 'test', capacity: 1 })).id).toBe(
      local.id,
    );
  });
});
