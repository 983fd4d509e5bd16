import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('bulk actions [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let manager: Credentials;
  let outsider: Credentials;
  const ids: string[] = [];

  const send = (url: string, who: Credentials, body: unknown, method: 'POST' | 'GET' = 'POST') =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), 'content-type': 'application/json' },
      ...(method === 'POST' ? { payload: JSON.stringify(body) } : {}),
    });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    manager = await t.userWithKey('Manager');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    for (let i = 0; i < 4; i++) {
      const asset = (
        await send('/assets', analyst, {
          Kind: 'Host',
          IpAddresses: [`10.8.0.${i + 1}`],
          Tags: i < 2 ? ['branch'] : ['hq'],
        })
      ).json().Id;
      for (const title of ['SMBv1 enabled', 'Telnet open']) {
        ids.push(
          (
            await send('/findings', analyst, {
              AssetId: asset,
              Vulnerability: { Title: title, Severity: i < 2 ? 'High' : 'Low' },
            })
          ).json().Id,
        );
      }
    }
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('changes the state of every matching finding in one go, with history, and says how many', async () => {
    const res = await send('/findings/bulk/state', analyst, {
      Filter: { Search: 'telnet', Tag: 'branch' },
      State: 'Fixed',
    });
    expect(res.json()).toEqual({ Matched: 2, Changed: 2, Skipped: 0 });
    const again = await send('/findings/bulk/state', analyst, {
      Filter: { Search: 'telnet' },
      State: 'Fixed',
    });
    expect(again.json()).toEqual({ Matched: 4, Changed: 2, Skipped: 2 });
    const fixed = (await send('/findings?State=Fixed', analyst, null, 'GET')).json();
    expect(fixed.TotalCount).toBe(4);
    const one = (await send(`/findings/${fixed.Items[0].Id}`, analyst, null, 'GET')).json();
    expect(one.Events.at(-1)).toMatchObject({ FromState: 'Open', ToState: 'Fixed', ActorType: 'apikey' });
    expect(one.FixedAt).not.toBeNull();
  });

  it('applies the same rules as for one finding', async () => {
    const until = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const accept = {
      Filter: { Severity: ['Low'], State: ['Open'] },
      State: 'RiskAccepted',
      Justification: 'compensating control',
      Until: until,
    };
    expect((await send('/findings/bulk/state', analyst, accept)).statusCode).toBe(403);
    expect(
      (await send('/findings/bulk/state', manager, { ...accept, Justification: undefined })).statusCode,
    ).toBe(400);
    expect((await send('/findings/bulk/state', manager, { ...accept, Until: undefined })).statusCode).toBe(
      400,
    );
    expect((await send('/findings/bulk/state', manager, accept)).json()).toEqual({
      Matched: 2,
      Changed: 2,
      Skipped: 0,
    });
    expect(
      (await send('/findings/bulk/state', analyst, { Filter: { State: ['Nope'] }, State: 'Fixed' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await send('/findings/bulk/state', analyst, { Filter: { state: ['Open'] }, State: 'Fixed' }))
        .statusCode,
    ).toBe(400);
    expect((await send('/findings/bulk/state', analyst, { State: 'Fixed' })).statusCode).toBe(400);
  });

  it('links selected or filtered findings to a ticket', async () => {
    const ticket = (await send('/tickets', analyst, { Title: 'Branch offices' })).json();
    const res = await send('/findings/bulk/ticket', analyst, {
      Filter: { Tag: 'branch' },
      TicketId: ticket.Id,
    });
    expect(res.json()).toEqual({ Matched: 4, Changed: 4, Skipped: 0 });
    const picked = await send('/findings/bulk/ticket', analyst, {
      Filter: { Ids: [ids[0], ids[7]] },
      TicketId: ticket.Id,
    });
    expect(picked.json()).toEqual({ Matched: 2, Changed: 1, Skipped: 1 });
    expect((await send(`/tickets/${ticket.Id}`, analyst, null, 'GET')).json().FindingCount).toBe(5);
    expect(
      (
        await send('/findings/bulk/ticket', analyst, {
          Filter: {},
          TicketId: '01900000-0000-7000-8000-000000000000',
        })
      ).statusCode,
    ).toBe(404);
  });

  it('tags every matching asset', async () => {
    const res = await send('/assets/bulk/tags', analyst, {
      Filter: { Tag: 'hq' },
      Add: ['pci'],
      Remove: ['hq'],
    });
    expect(res.json()).toEqual({ Changed: 2 });
    expect((await send('/assets?Tag=pci', analyst, null, 'GET')).json().TotalCount).toBe(2);
    expect((await send('/assets?Tag=hq', analyst, null, 'GET')).json().TotalCount).toBe(0);
    expect((await send('/assets/bulk/tags', analyst, { Filter: {}, Add: [] })).statusCode).toBe(400);
  });

  it('never reaches into another organisation', async () => {
    const res = await send('/findings/bulk/state', outsider, { Filter: { Ids: ids }, State: 'Fixed' });
    expect(res.json()).toEqual({ Matched: 0, Changed: 0, Skipped: 0 });
    const tags = await send('/assets/bulk/tags', outsider, { Filter: {}, Add: ['mine'] });
    expect(tags.json()).toEqual({ Changed: 0 });
    expect((await send('/assets?Tag=mine', analyst, null, 'GET')).json().TotalCount).toBe(0);
  });
});
