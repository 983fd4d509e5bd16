import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('a JSON report of the wrong shape, through POST /imports [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const upload = async (report: string, query: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/latest/imports${query}`,
      headers: { ...authHeaders(analyst), 'content-type': 'application/json' },
      payload: report,
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    return (
      await t.app.inject({
        method: 'GET',
        url: `/api/latest/imports/${res.json().Id}`,
        headers: authHeaders(analyst),
      })
    ).json();
  };

  it('ends Failed, saying which value is wrong, why, and where (format given and detected)', async () => {
    const report = '{"SchemaVersion": 2, "ArtifactName": "x", "Results": 5}';
    for (const query of ['?Format=trivy', '']) {
      const body = await upload(report, query);
      expect(body.State).toBe('Failed');
      expect(body.Error).toBe(
        'This is not a Trivy JSON report of the expected shape: `Results` is a number, not a list of results (line 1, column 54)',
      );
    }
  });

  it('a report of the right shape still completes', async () => {
    const body = await upload('{"SchemaVersion": 2, "ArtifactName": "x", "Results": []}', '?Format=trivy');
    expect(body.State).not.toBe('Failed');
  });
});
