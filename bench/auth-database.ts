// The databases bench:auth and bench:auth-cpu run Rampart on.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Which databases to run on: the embedded one unless BENCH_AUTH_EMBEDDED=off, and PostgreSQL
 * when DATABASE_URL is set. (The switch lets the bench run while the embedded database is being
 * replaced, or to measure PostgreSQL alone.)
 */
export function authBenchKinds(): string[] {
  const embedded = process.env.BENCH_AUTH_EMBEDDED ?? 'on';
  if (embedded !== 'on' && embedded !== 'off')
    throw new Error(`BENCH_AUTH_EMBEDDED must be 'on' or 'off', not '${embedded}'`);
  const kinds = [
    ...(embedded === 'on' ? ['embedded'] : []),
    ...(process.env.DATABASE_URL ? ['postgresql'] : []),
  ];
  if (kinds.length === 0) throw new Error('BENCH_AUTH_EMBEDDED=off needs DATABASE_URL (a PostgreSQL server)');
  return kinds;
}

/** A fresh database on the DATABASE_URL server, dropped by `drop`. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
