import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { layout } from '../../src/db/embedded/server.js';
import { handlerOf } from '../../src/jobs/catalogue.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { LocalInvalidationBus } from '../../src/lib/invalidation-bus.js';
import { buildServices } from '../../src/services.js';

export interface AfterRestart {
  findings: number;
  assets: number;
  /** Staging rows left, by import. */
  staged: Record<string, number>;
  imports: { id: string; state: string; error: string | null; counts: Record<string, number> }[];
  /** Imports that were Queued or Running when the process started. */
  unfinished: string[];
  /** What is left in RAMPART_IMPORT_DIR. */
  files: string[];
}

/** How far past the killed process's time the restarted one starts: beyond any import job's lease. */
const LATER_MS = 5 * 60_000;

/**
 * What a process started after an import's process was killed does, then what the database holds:
 * its worker finds the import's job, whose lease has run out by then, and runs it again to its
 * end; an import with no job left to run it is ended by the sweep.
 */
export async function restartAndInspect(env: Record<string, string>): Promise<AfterRestart> {
  const config = loadConfig(env);
  const database = await openDatabase(config, { command: 'test' });
  try {
    const later = () => new Date(Date.now() + LATER_MS);
    const services = buildServices(database, later, new LocalInvalidationBus(), config);
    const unfinished = await database.db
      .selectFrom('imports')
      .select('id')
      .where('state', 'in', ['Queued', 'Running'])
      .execute();
    const worker = new JobWorker(services.jobs).register('import', handlerOf('import', services));
    await worker.drain();
    // What a server does at start and every minute (src/background.ts).
    await services.imports.sweep();
    const count = async (table: 'findings' | 'assets') =>
      Number(
        (
          await database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const staged: Record<string, number> = {};
    for (const table of [
      'import_findings',
      'import_assets',
      'import_services',
      'import_software',
      'import_vulnerabilities',
    ] as const) {
      const rows = await database.db
        .selectFrom(table)
        .select((eb) => ['import_id', eb.fn.countAll<string>().as('n')])
        .groupBy('import_id')
        .execute();
      for (const r of rows) staged[r.import_id] = (staged[r.import_id] ?? 0) + Number(r.n);
    }
    const imports = await database.db
      .selectFrom('imports')
      .select(['id', 'state', 'error', 'counts'])
      .orderBy('created_at')
      .execute();
    return {
      findings: await count('findings'),
      assets: await count('assets'),
      staged,
      imports: imports.map((i) => ({
        ...i,
        counts: (typeof i.counts === 'string' ? JSON.parse(i.counts) : i.counts) as Record<string, number>,
      })),
      unfinished: unfinished.map((u) => u.id),
      files: fs.existsSync(env.RAMPART_IMPORT_DIR!) ? fs.readdirSync(env.RAMPART_IMPORT_DIR!) : [],
    };
  } finally {
    await database.close();
  }
}

/**
 * A second connection to the database a running `rampart import` process holds: PostgreSQL's by
 * its URL, the embedded server's by the socket folder its postmaster.pid announces (5th line) and
 * the folder's generated password, as Rampart itself connects.
 */
async function connectBeside(env: Record<string, string>): Promise<pg.Client> {
  const client = env.DATABASE_URL
    ? new pg.Client({ connectionString: env.DATABASE_URL })
    : (() => {
        const dataDir = env.RAMPART_DATA_DIR!;
        const { pgdata, credentials } = layout(dataDir);
        const socketDir = fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[4];
        return new pg.Client({
          host: socketDir,
          port: 5432,
          ...JSON.parse(fs.readFileSync(credentials, 'utf8')),
        });
      })();
  await client.connect();
  return client;
}

/**
 * Waits until an import under way has staged rows (the batches of assets, vulnerabilities and
 * services written while the report is read on), polling a second connection to its database;
 * fails after `timeoutMs`.
 */
export async function untilImportStages(env: Record<string, string>, timeoutMs = 60_000): Promise<number> {
  const client = await connectBeside(env);
  try {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ n: string }>(
        `select (select count(*) from import_assets a join imports i on i.id = a.import_id where i.state = 'Running')
              + (select count(*) from import_vulnerabilities v join imports i on i.id = v.import_id where i.state = 'Running') as n`,
      );
      const staged = Number(rows[0]?.n ?? 0);
      if (staged > 0) return staged;
      if (performance.now() > deadline) throw new Error(`no import staged anything within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    await client.end();
  }
}
