import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// The scan rules of src/modules/findings/rules.ts as the import merge applies them, with the
// decisions a report carries (a generic CSV's FalsePositive, RiskAccepted and IsMitigated columns).
describe.each(DB_KINDS)('decisions a report carries, merged by the scan rules [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  const csv = (rows: { title: string; flag?: 'FalsePositive' | 'RiskAccepted' | 'IsMitigated' }[]) =>
    [
      'Title,Severity,FalsePositive,RiskAccepted,IsMitigated',
      ...rows.map(
        (r) =>
          `${r.title},High,${r.flag === 'FalsePositive'},${r.flag === 'RiskAccepted'},${r.flag === 'IsMitigated'}`,
      ),
    ].join('\n');

  const upload = async (report: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?Format=generic',
      headers: { ...authHeaders(analyst), 'content-type': 'text/csv' },
      payload: report,
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = await t.app.inject({
      method: 'GET',
      url: `/api/latest/imports/${res.json().Id}`,
      headers: authHeaders(analyst),
    });
    expect(done.json().State).toBe('Completed');
    return done.json();
  };

  const finding = async (title: string) => {
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/latest/findings?PageSize=50&Search=${encodeURIComponent(title)}`,
      headers: authHeaders(analyst),
    });
    const item = list.json().Items.find((f: { Title: string }) => f.Title === title);
    const detail = await t.app.inject({
      method: 'GET',
      url: `/api/latest/findings/${item.Id}`,
      headers: authHeaders(analyst),
    });
    return detail.json();
  };
  const lastEvent = (f: {
    Events: { FromState: string | null; ToState: string; Reason: string | null }[];
  }) => {
    const e = f.Events[f.Events.length - 1]!;
    return { from: e.FromState, to: e.ToState, reason: e.Reason };
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('applies a report’s decisions to new and open findings, reopens fixed ones, keeps people’s', async () => {
    const first = await upload(
      csv([
        { title: 'Rule A' },
        { title: 'Rule B' },
        { title: 'Rule C' },
        { title: 'Rule D' },
        { title: 'Rule E', flag: 'FalsePositive' },
        { title: 'Rule F', flag: 'IsMitigated' },
      ]),
    );
    expect(first.Counts).toMatchObject({ New: 6, Fixed: 0, Reopened: 0 });
    expect(await finding('Rule A')).toMatchObject({ State: 'Open', StateReason: null, FixedAt: null });
    expect(await finding('Rule E')).toMatchObject({
      State: 'FalsePositive',
      StateReason: 'Marked as a false positive in the report.',
      FixedAt: null,
    });
    const f = await finding('Rule F');
    expect(f).toMatchObject({ State: 'Fixed', StateReason: 'Mitigated, as the report says.' });
    expect(f.FixedAt).not.toBeNull();

    // Open findings take the report's decision; one the report no longer shows is Fixed.
    const second = await upload(
      csv([
        { title: 'Rule A', flag: 'FalsePositive' },
        { title: 'Rule B', flag: 'IsMitigated' },
        { title: 'Rule C', flag: 'RiskAccepted' },
        { title: 'Rule E' },
        { title: 'Rule F' },
      ]),
    );
    expect(second.Counts).toMatchObject({ New: 0, Fixed: 1, Reopened: 1, Unchanged: 4 });
    const a = await finding('Rule A');
    expect(a).toMatchObject({
      State: 'FalsePositive',
      StateReason: 'Marked as a false positive in the report.',
    });
    expect(lastEvent(a)).toEqual({ from: 'Open', to: 'FalsePositive', reason: 'Reported by Generic' });
    const b = await finding('Rule B');
    expect(b).toMatchObject({ State: 'Fixed', StateReason: 'Mitigated, as the report says.' });
    expect(b.FixedAt).not.toBeNull();
    expect(await finding('Rule C')).toMatchObject({
      State: 'RiskAccepted',
      StateReason: 'Risk accepted in the report.',
    });
    const d = await finding('Rule D');
    expect(d).toMatchObject({ State: 'Fixed', StateReason: null });
    expect(d.FixedAt).not.toBeNull();
    expect(lastEvent(d)).toEqual({ from: 'Open', to: 'Fixed', reason: 'Not seen again (Generic)' });
    // A person's (or an earlier report's) FalsePositive stays when the report says nothing.
    expect(await finding('Rule E')).toMatchObject({ State: 'FalsePositive' });
    // Fixed and seen again without a decision: Reopened, its reason and fixed date cleared.
    const reopened = await finding('Rule F');
    expect(reopened).toMatchObject({ State: 'Reopened', StateReason: null, FixedAt: null });
    expect(lastEvent(reopened)).toEqual({ from: 'Fixed', to: 'Reopened', reason: 'Seen again (Generic)' });

    // Fixed and reported fixed stays Fixed with its date; Fixed and reported a false positive
    // comes back as Reopened (the report's decision is for open findings).
    const fixedAtB = b.FixedAt;
    const third = await upload(
      csv([
        { title: 'Rule A' },
        { title: 'Rule B', flag: 'IsMitigated' },
        { title: 'Rule C' },
        { title: 'Rule D', flag: 'FalsePositive' },
        { title: 'Rule E' },
        { title: 'Rule F', flag: 'RiskAccepted' },
      ]),
    );
    expect(third.Counts).toMatchObject({ New: 0, Fixed: 0, Reopened: 1, Unchanged: 5 });
    expect(await finding('Rule B')).toMatchObject({ State: 'Fixed', FixedAt: fixedAtB });
    expect(await finding('Rule D')).toMatchObject({ State: 'Reopened', StateReason: null, FixedAt: null });
    expect(await finding('Rule F')).toMatchObject({
      State: 'RiskAccepted',
      StateReason: 'Risk accepted in the report.',
    });
    expect(await finding('Rule C')).toMatchObject({ State: 'RiskAccepted' });
  });
});
