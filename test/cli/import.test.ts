import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/main.js';
import { runCliCapturing, startImportProcess } from '../helpers/cli.js';
import { createPostgresDatabase, DB_KINDS, type DbKind } from '../helpers/databases.js';
import { estate, nessusReport } from '../modules/imports/nessus-report.js';
import { restartAndInspect, untilImportStages } from './import-restart.js';

const run = (env: Record<string, string>, ...argv: string[]) => runCliCapturing(env, argv);

describe.each(DB_KINDS)('rampart import [%s]', (kind: DbKind) => {
  const env: Record<string, string> = { RAMPART_LOG_LEVEL: 'silent' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-import-'));
  let drop = async () => {};

  beforeAll(async () => {
    // Passable by others, as a user's folders are: as root, the server runs as its own account.
    fs.chmodSync(dir, 0o755);
    if (kind === 'embedded') env.RAMPART_DATA_DIR = path.join(dir, 'data');
    else {
      const pgdb = await createPostgresDatabase();
      env.DATABASE_URL = pgdb.url;
      drop = pgdb.drop;
    }
    env.RAMPART_IMPORT_DIR = path.join(dir, 'uploads');
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports a file straight into the database and prints what changed', async () => {
    const file = path.join(dir, 'small.nessus');
    fs.writeFileSync(file, nessusReport(estate(2, 3)));
    const first = await run(env, 'import', file);
    expect(first.code, first.stderr).toBe(EXIT.ok);
    expect(first.stdout).toContain('6 new, 0 reopened, 0 fixed, 0 unchanged');
    expect(first.stdout).toContain('2 created');
    const again = await run(env, 'import', file, '--json');
    expect(again.code).toBe(EXIT.ok);
    expect(JSON.parse(again.stdout)).toMatchObject({
      State: 'Completed',
      Format: 'nessus',
      Counts: { Unchanged: 6 },
    });
  });

  it('refuses a missing file, an unknown format and a broken report with their reasons', async () => {
    const missing = await run(env, 'import', path.join(dir, 'nope.nessus'));
    expect(missing.code).toBe(EXIT.failed);
    expect(missing.stderr).toContain('No such file');
    const text = path.join(dir, 'notes.txt');
    fs.writeFileSync(text, 'hello\n');
    const unknown = await run(env, 'import', text);
    expect(unknown.code).toBe(EXIT.failed);
    expect(unknown.stderr).toMatch(/Could not tell the report's format.*nessus/);
    expect(unknown.stderr).toContain('name it with Format (API) or --format (CLI)');
    const broken = path.join(dir, 'broken.nessus');
    fs.writeFileSync(broken, nessusReport(estate(1, 2)).slice(0, 300));
    const failed = await run(env, 'import', broken);
    expect(failed.code).toBe(EXIT.failed);
    expect(failed.stdout).toMatch(/failed: .*line \d+, column \d+/);
    const noServerKey = await run({ ...env }, 'import', broken, '--server', 'http://127.0.0.1:9');
    expect(noServerKey.stderr).toContain('RAMPART_ACCESS_KEY');
    const before = await restartAndInspect(env);
    expect(before.findings).toBe(6);
    // The broken report's import ended Failed, with its reason, and its file is gone.
    expect(before.imports.at(-1)).toMatchObject({
      state: 'Failed',
      error: expect.stringMatching(/line \d+, column \d+/),
    });
    expect(before.files).toEqual([]);
  });

  // issue 12, item 5: a report that reads but stores nothing used to end "Completed" with exit 0.
  it('exits 5 when the import completed but needs attention, and says why', async () => {
    const file = path.join(dir, 'unnamed-hosts.nessus');
    const host = (name: string, plugin: string) =>
      `<ReportHost name="${name}"><HostProperties><tag name="host-ip">10.47.0.300</tag></HostProperties><ReportItem port="443" svc_name="www" protocol="tcp" severity="3" pluginID="${plugin}" pluginName="Attention ${plugin}" pluginFamily="Web Servers"/></ReportHost>`;
    fs.writeFileSync(
      file,
      `<?xml version="1.0" ?>\n<NessusClientData_v2><Report name="x">${host('qa3 app01', '930001')}${host('qa3 app02', '930002')}</Report></NessusClientData_v2>\n`,
    );
    const text = await run(env, 'import', file);
    expect(EXIT.attention).toBe(5);
    expect(text.code, text.stderr).toBe(EXIT.attention);
    expect(text.stdout).toMatch(/^NEEDS ATTENTION: .*none became a finding/m);
    expect(text.stderr).toContain('error: The import needs attention');
    const json = await run(env, 'import', file, '--json');
    expect(json.code).toBe(EXIT.attention);
    expect(JSON.parse(json.stdout)).toMatchObject({
      State: 'Completed',
      Attention: { Reason: 'NoFindings' },
    });
  });

  it('says which server it cannot reach, and why', async () => {
    const file = path.join(dir, 'reach.nessus');
    fs.writeFileSync(file, nessusReport(estate(1, 1)));
    const keys = { ...env, RAMPART_ACCESS_KEY: 'ak', RAMPART_SECRET_KEY: 'sk' };
    // A port nobody listens on: one the system just gave out and took back.
    const probe = net.createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const server = `http://127.0.0.1:${port}`;
    const refused = await run(keys, 'import', file, '--server', server);
    expect(refused.code).toBe(EXIT.failed);
    expect(refused.stderr).toContain(
      `Could not reach the server ${server}: the connection was refused (is Rampart running there, on that port?) [ECONNREFUSED].`,
    );
    expect(refused.stderr).not.toContain('fetch failed');
    const notUrl = await run(keys, 'import', file, '--server', 'rampart-server');
    expect(notUrl.code).toBe(EXIT.failed);
    expect(notUrl.stderr).toContain('Could not reach the server rampart-server: that is not a URL');
  });

  it('resumes an import whose process is killed: the next process completes it once and removes its file', async () => {
    const file = path.join(dir, 'big.nessus');
    fs.writeFileSync(file, nessusReport(estate(60, 400)));
    const before = await restartAndInspect(env);
    const child = await startImportProcess(env, file);
    // The import has begun: once it has staged rows of its own, kill the process outright.
    expect(await untilImportStages(env)).toBeGreaterThan(0);
    expect(child.exitCode, 'the import ended before it was killed').toBeNull();
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    let killedId: string | undefined;
    if (kind === 'embedded') {
      // The embedded database has one process at a time: the next `rampart import` takes the
      // killed import up at once (no lease to wait for), then runs its own.
      const small = path.join(dir, 'after-kill.nessus');
      fs.writeFileSync(small, nessusReport(estate(1, 1)));
      const next = await run(env, 'import', small);
      expect(next.code, next.stderr).toBe(EXIT.ok);
      const resumed = await restartAndInspect(env);
      expect(resumed.unfinished).toEqual([]);
      killedId = resumed.imports.at(-2)?.id;
    }
    const after = await restartAndInspect(env);
    if (kind !== 'embedded') {
      expect(after.unfinished, JSON.stringify(after.imports.at(-1))).toHaveLength(1);
      killedId = after.unfinished[0];
    }
    const killed = after.imports.find((i) => i.id === killedId);
    expect(killed).toMatchObject({ state: 'Completed', error: null, counts: { Findings: 60 * 400 } });
    const added = after.imports.slice(before.imports.length);
    expect(added.filter((i) => i.id !== killedId).every((i) => i.state === 'Completed')).toBe(true);
    const newFindings = added.reduce((n, i) => n + (i.counts.New ?? 0), 0);
    const newAssets = added.reduce((n, i) => n + (i.counts.AssetsCreated ?? 0), 0);
    expect(after.findings - before.findings).toBe(newFindings);
    expect(after.assets - before.assets).toBe(newAssets);
    expect(after.staged).toEqual({});
    expect(after.files).toEqual([]);
    // Two imports of 24,000 findings: minutes on a loaded two-core machine.
  }, 300_000);
});
