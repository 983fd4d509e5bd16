import { PassThrough, type Readable, Writable } from 'node:stream';
import pg from 'pg';
import { listTables, type Query } from '../../../src/db/backup/catalog.js';
import { dumpDatabase } from '../../../src/db/backup/dump.js';

/** Every Rampart table's row count and a hash of its rows, by table; and the migrations applied. */
export async function fingerprint(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fingerprintOf(async <R>(text: string) => (await client.query(text)).rows as R[]);
  } finally {
    await client.end();
  }
}

/** fingerprint() through any way of querying (PGlite's too). */
export async function fingerprintOf(query: Query): Promise<Record<string, string>> {
  {
    const result: Record<string, string> = {};
    for (const table of await listTables(query)) {
      const [row] = await query<{ n: number; hash: string | null }>(
        `select count(*)::int as n, md5(string_agg(t::text, E'\\n' order by t::text)) as hash from public.${table.name} t`,
      );
      result[table.name] = `${row?.n} ${row?.hash ?? '-'}`;
    }
    const migrations = await query<{ name: string }>('select name from kysely_migration order by name');
    result.kysely_migration = migrations.map((m) => m.name).join(',');
    return result;
  }
}

/** A Writable that keeps what is written; `text()` gives it back. */
export function collector(): Writable & { text(): string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return Object.assign(out, { text: () => Buffer.concat(chunks).toString('utf8') });
}

/** The backup of the database at `url`, as text. */
export async function dumpToText(url: string, clock?: () => Date): Promise<string> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  await dumpDatabase({ connectionString: url }, out, clock ? { clock } : {});
  return Buffer.concat(chunks).toString('utf8');
}

/** A readable of `text` in chunks of `size` bytes, so that lines and rows straddle chunks. */
export function chunked(text: string, size = 7): Readable {
  const bytes = Buffer.from(text, 'utf8');
  const stream = new PassThrough();
  (async () => {
    for (let i = 0; i < bytes.length; i += size) stream.write(bytes.subarray(i, i + size));
    stream.end();
  })();
  return stream;
}

export async function rowsOf<R>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}
