import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { nessusReport } from './nessus-report.js';

// A file imported again says which earlier import had the same bytes (its
// SHA-256), and is still imported as a re-import.
describe.each(DB_KINDS)('an import of a file imported before [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let outsider: Credentials;

  const weekly = nessusReport([{ ip: '10.63.0.1', items: [{ plugin: '104743', name: 'TLS Version 1.0' }] }]);
  const other = nessusReport([{ ip: '10.63.0.2', items: [{ plugin: '104743', name: 'TLS Version 1.0' }] }]);

  const upload = async (report: string, who: Credentials = analyst) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?FileName=weekly.nessus',
      headers: { ...authHeaders(who), 'content-type': 'application/xml' },
      payload: report,
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = await t.app.inject({
      url: `/api/latest/imports/${res.json().Id}`,
      headers: authHeaders(who),
    });
    return { submitted: res.json(), done: done.json() };
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    analyst = await t.userWithKey('Analyst');
    outsider = await t.userWithKey('Analyst', await t.services.organizations.create('Other'));
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('says nothing of a file seen for the first time', async () => {
    const { submitted, done } = await upload(weekly);
    expect(submitted.SameFileAs).toBeNull();
    expect(done).toMatchObject({ State: 'Completed', SameFileAs: null, Counts: { New: 1 } });
  });

  it('names the latest earlier import of the same file, and still imports it', async () => {
    const first = (await t.app.inject({ url: '/api/latest/imports', headers: authHeaders(analyst) })).json()
      .Items[0];
    t.clock.advanceDays(1);
    const second = await upload(weekly);
    const same = { Id: first.Id, CreatedAt: first.CreatedAt };
    expect(second.submitted.SameFileAs).toEqual(same);
    expect(second.done).toMatchObject({
      State: 'Completed',
      SameFileAs: same,
      Counts: { New: 0, Unchanged: 1 },
    });
    expect(second.done.FileSha256).toBe(first.FileSha256);

    t.clock.advanceDays(1);
    const third = await upload(weekly);
    expect(third.done.SameFileAs).toEqual({ Id: second.done.Id, CreatedAt: second.done.CreatedAt });

    const list = (await t.app.inject({ url: '/api/latest/imports', headers: authHeaders(analyst) })).json();
    expect(list.Items.map((i: { SameFileAs: { Id: string } | null }) => i.SameFileAs?.Id ?? null)).toEqual([
      second.done.Id,
      first.Id,
      null,
    ]);
  });

  it('says nothing of another file, nor of the same file imported by another organisation', async () => {
    expect((await upload(other)).done.SameFileAs).toBeNull();
    expect((await upload(weekly, outsider)).done.SameFileAs).toBeNull();
  });
});
