import { type Kysely, sql } from 'kysely';
import { KNOWN_MIGRATIONS, wasMigrated } from './migrate.js';

/** What the readiness probe found: the database answers, and its schema is this code's. */
export interface DatabaseHealth {
  /** ok: answered in time; unreachable: failed; timeout: no answer within the probe's time. */
  database: 'ok' | 'unreachable' | 'timeout';
  /** ok: every migration this code knows is applied; behind: some are not; unknown: not asked. */
  migrations: 'ok' | 'behind' | 'unknown';
  /** How many of this code's migrations are not applied (when the database answered). */
  pending: number;
}

class ProbeTimeout extends Error {}

/**
 * Asks the database, within `timeoutMs`, whether it answers and which of this code's migrations
 * it has applied. Never throws: an unreachable database is an answer. A query left running past
 * the timeout ends on its own; its result is ignored.
 */
// biome-ignore lint/suspicious/noExplicitAny: asked of any schema
export async function checkDatabase(db: Kysely<any>, timeoutMs: number): Promise<DatabaseHealth> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout()), timeoutMs);
    timer.unref();
  });
  const ask = async (): Promise<number> => {
    if (!(await wasMigrated(db))) return KNOWN_MIGRATIONS.length;
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.rows.map((r) => r.name));
    return KNOWN_MIGRATIONS.filter((name) => !applied.has(name)).length;
  };
  const asking = ask();
  // The loser of the race must not reject unobserved.
  asking.catch(() => {});
  try {
    const pending = await Promise.race([asking, deadline]);
    return { database: 'ok', migrations: pending === 0 ? 'ok' : 'behind', pending };
  } catch (error) {
    return {
      database: error instanceof ProbeTimeout ? 'timeout' : 'unreachable',
      migrations: 'unknown',
      pending: 0,
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The readiness probe's check, shared by the probes that arrive together: however many ask at
 * once, the database is asked once.
 */
export class DatabaseProbe {
  private checking: Promise<DatabaseHealth> | undefined;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: asked of any schema
    private readonly db: Kysely<any>,
    private readonly timeoutMs = READY_TIMEOUT_MS,
  ) {}

  check(): Promise<DatabaseHealth> {
    this.checking ??= checkDatabase(this.db, this.timeoutMs).finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }
}

/** How long the readiness probe waits for the database. */
export const READY_TIMEOUT_MS = 1_000;
