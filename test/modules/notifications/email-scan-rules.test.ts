import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { smtpEnv, startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

// The original's MessageNotification on discovery scans and scan groups becomes notification
// rules with an Email endpoint, owned by the scan: made, changed and removed with it.

/** The body the original's clients send to create a discovery scan (see radar-compat tests). */
const originalBody = (range: string, name: string, notifications: unknown[]) => ({
  Id: null,
  Name: null,
  Range: null,
  ScanNodeId: null,
  TemplateId: null,
  ScheduleOption: { SchedulingMode: 'None' },
  scanTargets: [{ Range: range, Name: name, Exclude: '', invalidRangeSize: false }],
  scanMode: 'hostDiscovery',
  MessageNotification: notifications,
});

describe.each(DB_KINDS)('MessageNotification as notification rules [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let smtp: TestSmtpServer;

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, channel = 'latest') =>
    t.app.inject({
      method,
      url: `/api/${channel}/${path}`,
      headers: {
        ...authHeaders(t.admin),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const ownedRules = async (id: string) =>
    (
      await t.services.notifications.listRules({
        organizationId: t.org.id,
        actor: { type: 'system', id: null },
      })
    ).filter((r) => r.managedBy?.id === id);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: await smtpEnv(smtp) });
    expect(
      (await api('POST', 'allowedtargets', { Kind: 'Allowed', Target: '198.18.0.0/24' })).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    await smtp?.close();
  });

  it('makes, changes and removes a discovery scan’s rules with the scan, and the rules API may not touch them', async () => {
    const created = await api(
      'POST',
      'DiscoveryScans',
      originalBody('198.18.0.32/28', 'Office', [
        {
          EmailAddresses: 'soc@example.com, Lead@example.com',
          NotificationLevel: 'ScanStartsEnds',
          NotificationLevelId: '6',
        },
        { EmailAddresses: 'pager@example.com', NotificationLevel: 'ScanFails' },
      ]),
      'integration',
    );
    expect(created.statusCode, created.body).toBe(200);
    const id = created.body.replace(/["[\]]/g, '');
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    let rules = await ownedRules(id);
    expect(rules.map((r) => r.eventTypes).sort()).toEqual(
      [['scan.failed'], ['scan.started', 'scan.completed', 'scan.failed']].sort(),
    );
    for (const rule of rules)
      expect(rule).toMatchObject({
        scanId: id,
        scanGroupId: null,
        managedBy: { kind: 'DiscoveryScan', id, name: 'Office' },
      });
    const endpoints = await t.services.notifications.listEndpoints(ctx);
    const urlOf = (endpointId: string) => endpoints.find((e) => e.id === endpointId)?.url;
    const startsEnds = rules.find((r) => r.eventTypes.includes('scan.started'))!;
    expect(urlOf(startsEnds.endpointIds[0]!)).toBe('mailto:soc@example.com,lead@example.com');
    expect(endpoints.find((e) => e.id === startsEnds.endpointIds[0])?.kind).toBe('Email');

    // Changed through the rules service as if by the API: refused, naming the owner.
    await expect(
      t.services.notifications.updateRule(ctx, startsEnds.id, { enabled: false }),
    ).rejects.toMatchObject({
      detail: expect.stringContaining(
        'belongs to the discovery scan Office (its MessageNotification): change it there.',
      ),
    });
    await expect(t.services.notifications.deleteRule(ctx, startsEnds.id)).rejects.toMatchObject({
      problem: { status: 409 },
    });

    // The scan changes: one level goes, the other's addresses change; the rule keeps its id.
    const scan = (await api('GET', `discoveryscans/${id}`)).json();
    const updated = await api('PUT', `discoveryscans/${id}`, {
      Name: 'Office LAN',
      ScanTargets: scan.ScanTargets,
      Notifications: [{ EmailAddresses: ['noc@example.com'], NotificationLevel: 'ScanStartsEnds' }],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    rules = await ownedRules(id);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({ id: startsEnds.id, managedBy: { name: 'Office LAN' } });
    const after = await t.services.notifications.listEndpoints(ctx);
    expect(after.find((e) => e.id === rules[0]!.endpointIds[0])?.url).toBe('mailto:noc@example.com');
    expect(after.some((e) => e.url === 'mailto:pager@example.com')).toBe(false);

    // Never: no rule; deleting the scan leaves none either.
    const never = await api('PUT', `discoveryscans/${id}`, {
      Name: 'Office LAN',
      ScanTargets: scan.ScanTargets,
      Notifications: [{ EmailAddresses: ['noc@example.com'], NotificationLevel: 'Never' }],
    });
    expect(never.statusCode, never.body).toBe(200);
    expect(await ownedRules(id)).toEqual([]);
    const again = await api('PUT', `discoveryscans/${id}`, {
      Name: 'Office LAN',
      ScanTargets: scan.ScanTargets,
      Notifications: [{ EmailAddresses: ['noc@example.com'], NotificationLevel: 'ScanEnds' }],
    });
    expect(again.statusCode).toBe(200);
    expect(await ownedRules(id)).toHaveLength(1);
    expect((await api('DELETE', `discoveryscans/${id}`)).statusCode).toBe(204);
    expect(await ownedRules(id)).toEqual([]);
    expect(
      (await t.services.notifications.listEndpoints(ctx)).some((e) => e.url === 'mailto:noc@example.com'),
    ).toBe(false);
  });

  it('sends a scan’s event to its addresses only: another scan’s events do not match its rule', async () => {
    const mine = await api(
      'POST',
      'DiscoveryScans',
      originalBody('198.18.0.64/28', 'Branch', [
        { EmailAddresses: 'branch@example.com', NotificationLevel: 'ScanStartsEnds' },
      ]),
      'integration',
    );
    const id = mine.body.replace(/["[\]]/g, '');
    const scanData = (scanId: string, name: string) => ({
      Scan: { Kind: 'Discovery', Id: scanId, Name: name, ScanGroupId: null },
      Run: { Id: '0193a5c4-7f10-7c3e-9d41-00000000bbbb', Attempt: 1, State: 'Running' },
    });
    await t.services.events.publish(tdb.database.db, t.org.id, 'scan.started', scanData(id, 'Branch'));
    await t.services.events.publish(
      tdb.database.db,
      t.org.id,
      'scan.started',
      scanData('0193a5c4-7f10-7c3e-9d41-00000000cccc', 'Someone else’s'),
    );
    await t.services.events.dispatchPending();
    const [rule] = await ownedRules(id);
    const endpointId = rule!.endpointIds[0]!;
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const deliveries = await t.services.notifications.listDeliveries(ctx, endpointId, { pageSize: 10 });
    expect(deliveries.items).toHaveLength(1);
    const before = smtp.received.length;
    await t.services.notifications.deliverDue(t.org.id, endpointId);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(mail).toMatchObject({ to: ['branch@example.com'], subject: '[Rampart] Scan started: Branch' });
    expect(mail.text).toContain('The discovery scan “Branch” started.');
    expect(mail.html).toContain(`/discovery/${id}`);
    const delivered = await t.services.notifications.listDeliveries(ctx, endpointId, { pageSize: 10 });
    expect(delivered.items[0]).toMatchObject({ state: 'Succeeded', lastStatus: 250 });
  });

  it('makes a scan group’s rule for its scans’ events', async () => {
    const responsible = t.admin.userId;
    const res = await api(
      'POST',
      'scangroups',
      {
        ScanGroupName: 'Servers',
        ResponsiblePersonId: responsible,
        SystemScanSettingsEnabled: 'false',
        WebScanSettingsEnabled: 'false',
        MessageNotification: [{ EmailAddresses: 'ops@example.com', NotificationLevel: 'ScanFails' }],
      },
      'integration',
    );
    expect([200, 201]).toContain(res.statusCode);
    const groupId = (res.json().Id ?? res.body.replace(/["[\]]/g, '')) as string;
    const rules = await ownedRules(groupId);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      eventTypes: ['scan.failed'],
      scanGroupId: groupId,
      scanId: null,
      managedBy: { kind: 'ScanGroup', id: groupId, name: 'Servers' },
    });
    // A failed run of one of its scans goes to the group's address; a scan of no group's does not.
    const runOf = (scanGroupId: string | null) => ({
      Scan: {
        Kind: 'System',
        Id: '0193a5c4-7f10-7c3e-9d41-00000000dddd',
        Name: 'db-01',
        ScanGroupId: scanGroupId,
      },
      Run: { Id: '0193a5c4-7f10-7c3e-9d41-00000000eeee', Attempt: 1, State: 'Failed' },
      Error: 'The node stopped answering.',
    });
    await t.services.events.publish(tdb.database.db, t.org.id, 'scan.failed', runOf(groupId));
    await t.services.events.publish(tdb.database.db, t.org.id, 'scan.failed', runOf(null));
    await t.services.events.dispatchPending();
    const endpointId = rules[0]!.endpointIds[0]!;
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    expect(
      (await t.services.notifications.listDeliveries(ctx, endpointId, { pageSize: 10 })).items,
    ).toHaveLength(1);
    const before = smtp.received.length;
    await t.services.notifications.deliverDue(t.org.id, endpointId);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(mail).toMatchObject({ to: ['ops@example.com'], subject: '[Rampart] Scan failed: db-01' });
    expect(mail.text).toContain('The system scan “db-01” failed: The node stopped answering.\n');
  });
});
