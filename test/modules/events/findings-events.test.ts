import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportRecord } from '../../../src/importers/types.js';
import { uuidv7 } from '../../../src/lib/uuidv7.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { EventType } from '../../../src/modules/events/catalogue.js';
import { assertEventData } from '../../../src/modules/events/service.js';
import type { StoredEvent } from '../../../src/modules/events/types.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// Every change of a finding publishes its events in the change's own transaction: created,
// state_changed, reopened and kev_found from the API, bulk changes, imports' set-based merges and
// risk-acceptance expiry; the periodic watch announces SLA breaches, due dates, acceptances
// ending and KEV findings once per occurrence. Payloads match the catalogue's schemas.
describe.each(DB_KINDS)('findings events [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let manager: Credentials;
  let assetId: string;

  const send = (url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method: body === undefined ? 'GET' : 'POST',
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** The organisation's events of `types` since `after` (an event id), oldest first, checked. */
  const eventsOf = async (types: EventType[], orgId = t.org.id): Promise<StoredEvent[]> => {
    const events = (await t.services.events.listRecent(orgId, { types, limit: 10_000 })).reverse();
    for (const e of events) assertEventData(e.type, e.data);
    return events;
  };
  const subjects = (events: StoredEvent[]) => events.map((e) => e.subject);

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    manager = await t.userWithKey('Manager');
    assetId = (
      await send('/assets', analyst, { Kind: 'Host', IpAddresses: ['10.7.0.1'], Tags: ['prod'] })
    ).json().Id;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('publishes finding.created with its facets when the API records a finding, once', async () => {
    const body = { AssetId: assetId, Vulnerability: { Title: 'Telnet open', Severity: 'High' } };
    const created = (await send('/findings', analyst, body)).json();
    await send('/findings', analyst, body);
    const events = (await eventsOf(['finding.created'])).filter(
      (e) => e.subject === `findings/${created.Id}`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      Finding: {
        Id: created.Id,
        Title: 'Telnet open',
        Severity: 'High',
        State: 'Open',
        Kev: false,
        Asset: { Id: assetId },
      },
    });
    expect(events[0]!.facets).toEqual({
      severity: 'High',
      kev: false,
      riskScore: expect.any(Number),
      tags: ['prod'],
      assetIds: [assetId],
      // Recorded through the API, not by a scan of a group.
      scanGroupIds: [],
    });
    expect(t.services.events.envelope(events[0]!)).toMatchObject({
      type: 'rampart.finding.created',
      subject: `findings/${created.Id}`,
      dataschema: 'urn:rampart:events:finding.created:v1',
    });
  });

  it('publishes state_changed for a decision, and reopened when a Fixed finding comes back', async () => {
    const body = { AssetId: assetId, Vulnerability: { Title: 'SMBv1 enabled', Severity: 'Medium' } };
    const id = (await send('/findings', analyst, body)).json().Id;
    expect((await send(`/findings/${id}/state`, analyst, { State: 'Fixed' })).statusCode).toBe(200);
    await send('/findings', analyst, body);
    const changed = (await eventsOf(['finding.state_changed'])).filter((e) => e.subject === `findings/${id}`);
    expect(
      changed.map((e) => [
        (e.data as { FromState: string }).FromState,
        (e.data as { ToState: string }).ToState,
      ]),
    ).toEqual([
      ['Open', 'Fixed'],
      ['Fixed', 'Reopened'],
    ]);
    expect((changed[0]!.data as { Actor: unknown }).Actor).toEqual({ Type: 'apikey', Id: analyst.apiKeyId });
    const reopened = (await eventsOf(['finding.reopened'])).filter((e) => e.subject === `findings/${id}`);
    expect(reopened).toHaveLength(1);
    expect(reopened[0]!.data).toMatchObject({ Finding: { State: 'Reopened' }, FromState: 'Fixed' });
  });

  it('leaves no event for a decision that fails, and no decision without its event', async () => {
    const id = (
      await send('/findings', analyst, {
        AssetId: assetId,
        Vulnerability: { Title: 'FTP open', Severity: 'Low' },
      })
    ).json().Id;
    const before = (await eventsOf(['finding.state_changed'])).length;
    // Not allowed (RiskAccepted needs a justification): nothing changes, nothing is published.
    expect((await send(`/findings/${id}/state`, manager, { State: 'RiskAccepted' })).statusCode).toBe(400);
    expect(await eventsOf(['finding.state_changed'])).toHaveLength(before);
    // A change whose transaction fails after the finding moved (the history row cannot be written):
    // the move and its event are rolled back together.
    await sql`alter table finding_events add constraint test_no_fixed check (to_state is distinct from 'FalsePositive')`.execute(
      tdb.database.db,
    );
    try {
      const res = await send(`/findings/${id}/state`, manager, {
        State: 'FalsePositive',
        Justification: 'lab host',
      });
      expect(res.statusCode).toBe(500);
    } finally {
      await sql`alter table finding_events drop constraint test_no_fixed`.execute(tdb.database.db);
    }
    expect((await send(`/findings/${id}`, analyst)).json().State).toBe('Open');
    expect(await eventsOf(['finding.state_changed'])).toHaveLength(before);
  });

  it('publishes one state_changed per finding of a bulk change, set-based', async () => {
    const ids: string[] = [];
    for (const title of ['Bulk one', 'Bulk two', 'Bulk three'])
      ids.push(
        (
          await send('/findings', analyst, {
            AssetId: assetId,
            Vulnerability: { Title: title, Severity: 'Low' },
          })
        ).json().Id,
      );
    const res = await send('/findings/bulk/state', analyst, { Filter: { Search: 'bulk' }, State: 'Fixed' });
    expect(res.json()).toMatchObject({ Changed: 3 });
    const changed = (await eventsOf(['finding.state_changed'])).filter((e) =>
      ids.some((id) => e.subject === `findings/${id}`),
    );
    expect(changed.map((e) => e.subject).sort()).toEqual(ids.map((id) => `findings/${id}`).sort());
    expect(changed.every((e) => (e.data as { ToState: string }).ToState === 'Fixed')).toBe(true);
  });

  it('publishes kev_found when a finding is created on a KEV vulnerability, and when intel marks one KEV, once', async () => {
    const first = (
      await send('/findings', analyst, {
        AssetId: assetId,
        Vulnerability: { Title: 'Exploited RCE', Severity: 'Critical' },
      })
    ).json();
    const vulnerabilityId = first.VulnerabilityId ?? first.Vulnerability?.Id;
    expect(vulnerabilityId).toBeTruthy();
    expect(subjects(await eventsOf(['finding.kev_found']))).not.toContain(`findings/${first.Id}`);
    // Intelligence puts the vulnerability in KEV: its open findings are announced, once.
    await sql`update vulnerabilities set kev = true where id = ${vulnerabilityId}`.execute(tdb.database.db);
    await t.services.findings.rescoreVulnerabilities(t.org.id, [vulnerabilityId]);
    await t.services.findings.rescoreVulnerabilities(t.org.id, [vulnerabilityId]);
    await t.services.findings.watch();
    const kev = (await eventsOf(['finding.kev_found'])).filter((e) => e.subject === `findings/${first.Id}`);
    expect(kev).toHaveLength(1);
    expect(kev[0]!.facets.kev).toBe(true);
    // A new finding of it, on another asset, is KEV from the start.
    const other = (await send('/assets', analyst, { Kind: 'Host', IpAddresses: ['10.7.0.2'] })).json().Id;
    const second = (
      await send('/findings', analyst, { AssetId: other, VulnerabilityId: vulnerabilityId })
    ).json();
    await t.services.findings.watch();
    expect(
      (await eventsOf(['finding.kev_found'])).filter((e) => e.subject === `findings/${second.Id}`),
    ).toHaveLength(1);
  });

  it("publishes an import merge's events set-based, in its transaction", async () => {
    const ctx: ServiceContext = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const record = (i: number): ImportRecord => ({
      type: 'finding',
      asset: { kind: 'Host', ipAddresses: ['10.7.1.1'] },
      vulnerability: { ruleId: `rule-${i}`, title: `Imported ${i}` },
      location: { kind: 'Port', port: 1000 + i, protocol: 'tcp' },
      severity: 'High',
    });
    const ingest = (records: ImportRecord[]) =>
      t.services.imports.ingestRecords(ctx, {
        importId: uuidv7(),
        source: 'events-test',
        format: 'events-test',
        scopeName: 'events-test',
        displayName: 'events test',
        content: { sha256: '0'.repeat(64), size: 1 },
        records,
      });
    const createdBefore = (await eventsOf(['finding.created'])).length;
    await ingest([record(1), record(2), record(3)]);
    const created = await eventsOf(['finding.created']);
    expect(created).toHaveLength(createdBefore + 3);
    expect(
      created
        .slice(-3)
        .map((e) => (e.data as { Finding: { Title: string } }).Finding.Title)
        .sort(),
    ).toEqual(['Imported 1', 'Imported 2', 'Imported 3']);
    // Re-imported without 3: it becomes Fixed; then with it again: Reopened.
    await ingest([record(1), record(2)]);
    await ingest([record(1), record(2), record(3)]);
    const id3 = created.at(-1)!.subject!.includes('findings/')
      ? created.find((e) => (e.data as { Finding: { Title: string } }).Finding.Title === 'Imported 3')!
          .subject
      : null;
    const changes = (await eventsOf(['finding.state_changed'])).filter((e) => e.subject === id3);
    expect(changes.map((e) => (e.data as { ToState: string }).ToState)).toEqual(['Fixed', 'Reopened']);
    expect((await eventsOf(['finding.reopened'])).filter((e) => e.subject === id3)).toHaveLength(1);
    // Nothing new again: no events.
    const count = (await t.services.events.listRecent(t.org.id, { limit: 10_000 })).length;
    await ingest([record(1), record(2), record(3)]);
    expect((await t.services.events.listRecent(t.org.id, { limit: 10_000 })).length).toBe(
      count + 1 /* import.completed */,
    );
  });

  it('announces SLA breaches, due dates and acceptances ending once per occurrence', async () => {
    const id = (
      await send('/findings', analyst, {
        AssetId: assetId,
        Vulnerability: { Title: 'Due soon', Severity: 'Critical' },
      })
    ).json().Id;
    const accepted = (
      await send('/findings', analyst, {
        AssetId: assetId,
        Vulnerability: { Title: 'Accepted', Severity: 'Low' },
      })
    ).json().Id;
    const until = new Date(t.clock.now.getTime() + 3 * 86_400_000).toISOString();
    expect(
      (
        await send(`/findings/${accepted}/state`, manager, {
          State: 'RiskAccepted',
          Justification: 'ok',
          Until: until,
        })
      ).statusCode,
    ).toBe(200);
    const due = new Date((await send(`/findings/${id}`, analyst)).json().DueAt);
    const of = async (type: EventType) =>
      (await eventsOf([type])).filter(
        (e) => e.subject === `findings/${id}` || e.subject === `findings/${accepted}`,
      );
    // The acceptance ends within 7 days: announced once, however often the watch runs.
    await t.services.findings.watch();
    await t.services.findings.watch();
    const originalNow = t.clock.now;
    try {
      // Three days before the due date: due soon, once however often the watch runs.
      t.clock.now = new Date(due.getTime() - 3 * 86_400_000);
      await t.services.findings.watch();
      await t.services.findings.watch();
      expect(await of('finding.sla_due_soon')).toHaveLength(1);
      expect(await of('finding.sla_breached')).toHaveLength(0);
      // A day past it: breached, once.
      t.clock.now = new Date(due.getTime() + 86_400_000);
      await t.services.findings.watch();
      await t.services.findings.watch();
      const breached = await of('finding.sla_breached');
      expect(breached).toHaveLength(1);
      expect(breached[0]!.data).toMatchObject({ DueAt: due.toISOString(), Finding: { Id: id } });
      // The acceptance's announcement was not repeated by the later watches.
      const expiring = await of('risk_acceptance.expiring');
      expect(expiring).toHaveLength(1);
      expect(expiring[0]!.data).toMatchObject({
        AcceptedUntil: until,
        Finding: { Id: accepted, State: 'RiskAccepted' },
      });
    } finally {
      t.clock.now = originalNow;
    }
  });

  it('publishes state_changed when a risk acceptance expires', async () => {
    const id = (
      await send('/findings', analyst, {
        AssetId: assetId,
        Vulnerability: { Title: 'Expiring', Severity: 'Low' },
      })
    ).json().Id;
    const until = new Date(t.clock.now.getTime() + 86_400_000).toISOString();
    await send(`/findings/${id}/state`, manager, {
      State: 'RiskAccepted',
      Justification: 'ok',
      Until: until,
    });
    const originalNow = t.clock.now;
    try {
      t.clock.now = new Date(originalNow.getTime() + 2 * 86_400_000);
      await t.services.findings.expireRiskAcceptances();
    } finally {
      t.clock.now = originalNow;
    }
    const changed = (await eventsOf(['finding.state_changed'])).filter((e) => e.subject === `findings/${id}`);
    expect(changed.map((e) => (e.data as { ToState: string }).ToState)).toEqual(['RiskAccepted', 'Open']);
    expect((changed[1]!.data as { Actor: unknown }).Actor).toEqual({ Type: 'system', Id: null });
  });

  it('names the scan group of the scan whose findings an event is about', async () => {
    const admin = t.admin;
    await send('/allowedtargets', admin, { Kind: 'Allowed', Target: '10.7.9.0/24' });
    const groupId = uuidv7();
    const scan = await send('/systemscans', admin, {
      Name: 'Grouped',
      ScanTargets: [{ Range: '10.7.9.1' }],
      ScanGroupId: groupId,
    });
    expect(scan.statusCode, scan.body).toBe(201);
    const ctx: ServiceContext = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    await t.services.imports.ingestRecords(ctx, {
      importId: uuidv7(),
      source: 'events-test',
      format: 'events-test',
      scopeName: `system-scan:${scan.json().Id}`,
      displayName: 'grouped',
      content: { sha256: '0'.repeat(64), size: 1 },
      records: [
        {
          type: 'finding',
          asset: { kind: 'Host', ipAddresses: ['10.7.9.1'] },
          vulnerability: { ruleId: 'grouped-1', title: 'Grouped finding' },
          location: { kind: 'Port', port: 22, protocol: 'tcp' },
          severity: 'Low',
        },
      ],
    });
    const created = (await eventsOf(['finding.created'])).filter(
      (e) => (e.data as { Finding: { Title: string } }).Finding.Title === 'Grouped finding',
    );
    expect(created.map((e) => e.facets.scanGroupIds)).toEqual([[groupId]]);
  });

  it("keeps an organisation's finding events to itself", async () => {
    const other = await t.services.organizations.create('Elsewhere');
    expect(await eventsOf(['finding.created'], other.id)).toEqual([]);
  });
});
