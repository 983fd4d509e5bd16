import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/main.js';
import { TestClock } from '../helpers/app.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase, DB_KINDS, type DbKind } from '../helpers/databases.js';

// The bundled knowledge base is dated (KEV catalogue 2025.08.25, EPSS scores of 2026-08-16, NVD
// page of 2026-10-08, CVE 5 records of 2024-10-23, OSV advisories of 2024-06-17): `intel status`
// says so, judged by the application's clock, never by the day the test runs.
describe.each(DB_KINDS)('rampart intel status: how current the intelligence is [%s]', (kind: DbKind) => {
  const env: Record<string, string> = { RAMPART_LOG_LEVEL: 'silent', RAMPART_INTEL_KB: 'off' };
  const clock = new TestClock(new Date('2026-10-10T12:00:00Z'));
  let drop = async () => {};

  const run = (...argv: string[]) => runCliCapturing(env, argv, clock.fn);
  interface FeedRow {
    Feed: string;
    Records: number;
    DataDate: string | null;
    Stale: boolean;
    LastLoad: Record<string, unknown> | null;
  }
  const status = async (): Promise<Record<string, FeedRow>> => {
    const r = await run('intel', 'status', '--json');
    expect(r.code, r.stderr).toBe(EXIT.ok);
    return Object.fromEntries((JSON.parse(r.stdout) as FeedRow[]).map((f) => [f.Feed, f]));
  };

  beforeAll(async () => {
    if (kind === 'embedded') {
      env.RAMPART_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-intel-status-'));
    } else {
      const pgdb = await createPostgresDatabase();
      env.DATABASE_URL = pgdb.url;
      drop = pgdb.drop;
    }
    // `intel status` only reads: it needs a database made by a command that writes.
    expect((await run('migrate')).code).toBe(EXIT.ok);
  });
  afterAll(async () => {
    await drop();
    if (env.RAMPART_DATA_DIR) fs.rmSync(env.RAMPART_DATA_DIR, { recursive: true, force: true });
  });

  it('knows no date and warns of nothing before anything was loaded', async () => {
    const feeds = await status();
    for (const feed of ['nvd', 'cve5', 'kev', 'epss', 'osv'])
      expect(feeds[feed], feed).toMatchObject({ DataDate: null, Stale: false, Records: 0 });
    const text = await run('intel', 'status');
    expect(text.stdout).toMatch(/^kev +0 records; never loaded$/m);
    expect(text.stdout).not.toMatch(/Warning/);
    // The official sources are not synced here (RAMPART_INTEL_SYNC=off): the status says so.
    expect(text.stdout).toContain('Sync from the official sources: off (RAMPART_INTEL_SYNC=off)');
  });

  it("shows each feed's data date in ISO 8601 UTC and flags those older than 30 days", async () => {
    const loaded = await run('intel', 'load', path.resolve('knowledge-base'));
    expect(loaded.code, loaded.stderr).toBe(EXIT.ok);
    const feeds = await status();
    expect(feeds.kev).toMatchObject({ DataDate: '2025-08-25T00:00:00.000Z', Stale: true });
    expect(feeds.epss).toMatchObject({ DataDate: '2026-08-16T00:00:00.000Z', Stale: true });
    // NVD writes its page timestamp without a zone; it is UTC.
    expect(feeds.nvd).toMatchObject({ DataDate: '2026-10-08T22:17:07.363Z', Stale: false });
    expect(feeds.cve5).toMatchObject({ DataDate: '2024-10-23T13:32:35.204Z', Stale: true });
    expect(feeds.osv).toMatchObject({ DataDate: '2024-06-17T19:09:12.000Z', Stale: true });
    expect(feeds.kev!.LastLoad).toMatchObject({
      DataDate: '2025-08-25T00:00:00.000Z',
      DataDateAsGiven: '2025.08.25',
    });

    const text = await run('intel', 'status');
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toMatch(
      /^kev +\d+ records; data of 2025-08-25 \(411 days old\); last load .* Completed$/m,
    );
    expect(text.stdout).toMatch(/^nvd +41 records; data of 2026-10-08; last load .* Completed$/m);
    expect(text.stdout).toMatch(
      /Warning: the data of cve5, kev, epss, osv is more than 30 days old \(today is 2026-10-10\)/,
    );
    expect(text.stdout).toContain('rampart intel load');
    expect(text.stdout).toContain('RAMPART_INTEL_SYNC_URLS');
  });

  it('judges by the application clock: the same data was current on the day after the catalogue', async () => {
    clock.now = new Date('2025-08-26T09:00:00Z');
    const feeds = await status();
    expect(feeds.kev).toMatchObject({ DataDate: '2025-08-25T00:00:00.000Z', Stale: false });
    // Data dated after "today" is not stale either.
    expect(feeds.nvd!.Stale).toBe(false);
    expect(feeds.epss!.Stale).toBe(false);
    const text = await run('intel', 'status');
    expect(text.stdout).toMatch(
      /Warning: the data of cve5, osv is more than 30 days old \(today is 2025-08-26\)/,
    );
    expect(text.stdout).toMatch(/^kev +\d+ records; data of 2025-08-25; last load/m);
  });
});
