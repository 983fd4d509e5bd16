import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/main.js';
import { runCliCapturing } from '../helpers/cli.js';
import { createPostgresDatabase, DB_KINDS, type DbKind } from '../helpers/databases.js';
import { IntelMirror, NVD_PATH } from '../helpers/intel-mirror.js';

// `rampart intel sync` killed (SIGKILL) in the middle of NVD's first full load, then run again:
// the second run asks NVD only for the pages the first had not committed, and KEV and EPSS,
// synced before the kill, are not fetched again. The sources are a mirror on 127.0.0.1
// (test/helpers/intel-mirror.ts); the processes keep the system's clock, so nothing here depends
// on the day: only which pages are asked for.
describe.each(DB_KINDS)('rampart intel sync, killed and run again [%s]', (kind: DbKind) => {
  const mirror = new IntelMirror(() => Date.now());
  const env: Record<string, string> = { RAMPART_LOG_LEVEL: 'silent', RAMPART_INTEL_KB: 'off' };
  let drop = async () => {};

  beforeAll(async () => {
    await mirror.start();
    Object.assign(env, {
      RAMPART_INTEL_SYNC: 'on',
      RAMPART_INTEL_NVD_URL: `${mirror.base}${NVD_PATH}`,
      RAMPART_INTEL_NVD_PAGE_SIZE: '2',
      RAMPART_INTEL_KEV_URL: `${mirror.base}/kev.json`,
      RAMPART_INTEL_EPSS_URL: `${mirror.base}/epss.csv.gz`,
      RAMPART_INTEL_OSV_URL: `${mirror.base}/osv`,
      RAMPART_INTEL_OSV_ECOSYSTEMS: 'npm',
    });
    if (kind === 'embedded') {
      env.RAMPART_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-intel-sync-kill-'));
    } else {
      const pgdb = await createPostgresDatabase();
      env.DATABASE_URL = pgdb.url;
      drop = pgdb.drop;
    }
  });
  afterAll(async () => {
    await mirror.close();
    await drop();
    if (env.RAMPART_DATA_DIR) fs.rmSync(env.RAMPART_DATA_DIR, { recursive: true, force: true });
  });

  const nvdPages = () =>
    mirror.seen
      .filter((s) => s.path === NVD_PATH)
      .map((s) => ({
        window: s.url.searchParams.has('lastModStartDate'),
        startIndex: Number(s.url.searchParams.get('startIndex')),
      }));

  it('resumes at the page where the killed sync stopped', async () => {
    // The child sees only this test's database: never a DATABASE_URL of the surrounding run.
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'intel', 'sync'], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exit = once(child, 'exit');
    // Killed when it asks for the third page: the first two are committed by then.
    mirror.onRequest = (url) => {
      if (url.pathname === NVD_PATH && url.searchParams.get('startIndex') === '4') child.kill('SIGKILL');
    };
    const [code, signal] = await exit;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
    expect(nvdPages()).toEqual([
      { window: false, startIndex: 0 },
      { window: false, startIndex: 2 },
      { window: false, startIndex: 4 },
    ]);
    expect(mirror.seen.map((s) => s.path).filter((p) => p !== NVD_PATH)).toEqual([
      '/kev.json',
      '/epss.csv.gz',
    ]);

    mirror.onRequest = () => {};
    mirror.seen = [];
    const again = await runCliCapturing(env, ['intel', 'sync']);
    expect(again.code, again.stderr).toBe(EXIT.ok);
    // The full load goes on at record 4; then, at most, the seconds since it began as a window.
    const pages = nvdPages();
    expect(pages[0]).toEqual({ window: false, startIndex: 4 });
    expect(pages.slice(1).every((p) => p.window && p.startIndex === 0)).toBe(true);
    expect(mirror.seen.map((s) => s.path).filter((p) => p !== NVD_PATH)).toEqual(['/osv/npm/all.zip']);
    expect(again.stdout).toMatch(/^nvd +last synced \S+; changes loaded up to \S+$/m);

    const status = await runCliCapturing(env, ['intel', 'status', '--json']);
    const feeds = Object.fromEntries(
      (JSON.parse(status.stdout) as { Feed: string; Records: number }[]).map((f) => [f.Feed, f.Records]),
    );
    expect(feeds).toMatchObject({ nvd: 6, kev: 3, epss: 10, osv: 8 });
  });

  it('says there is nothing to sync when the sync is off and no URL is set', async () => {
    const r = await runCliCapturing({ ...env, RAMPART_INTEL_SYNC: 'off' }, ['intel', 'sync']);
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.stderr).toContain(
      'Nothing to sync: RAMPART_INTEL_SYNC is off and RAMPART_INTEL_SYNC_URLS is not set.',
    );
  });
});
