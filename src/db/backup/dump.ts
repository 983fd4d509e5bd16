import type { Writable } from 'node:stream';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { type Clock, systemClock } from '../../lib/clock.js';
import { VERSION } from '../../version.js';
import { appliedMigrations, listSequences, listTables, type Query, type TableInfo } from './catalog.js';
import {
  copyLine,
  END_OF_COPY,
  FORMAT_VERSION,
  headerText,
  LAST_LINE,
  NothingToBackUpError,
  quoteIdent,
  setvalLine,
} from './format.js';

export interface DumpOptions {
  /** The application's time, written as the backup's creation time (default: the system's). */
  clock?: Clock;
}

export interface DumpSummary {
  migrations: string[];
  /** Rows written per table, in the order written. */
  tables: { name: string; rows: number }[];
  sequences: number;
}

/** Where a dump reads from: a PostgreSQL session, or PGlite (see pglite.ts). */
export interface DumpSource {
  query: Query;
  /** Writes the rows of `table` in COPY text format, through `write`; returns how many. */
  copyOut(table: TableInfo, write: (chunk: Buffer) => Promise<void>): Promise<number>;
}

// Rows arrive one small chunk each; gathering them into larger writes keeps a dump from costing a
// system call per row. It is also the most a dump holds besides what the destination buffers.
const WRITE_BATCH_BYTES = 256 * 1024;

/** The output of a backup was closed (destroyed) before the backup was written. */
export class OutputClosedError extends Error {
  constructor() {
    super('The backup output was closed before the backup ended');
    this.name = 'OutputClosedError';
  }
}

/** Waits until `out` takes more, or is closed or fails (a plain 'drain' wait would hang on those). */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(out.writableFinished ? undefined : new OutputClosedError());
    const onError = (error: Error) => done(error);
    out.on('drain', onDrain);
    out.on('close', onClose);
    out.on('error', onError);
  });
}

/** Collects chunks into batches and writes them to `out`, waiting whenever `out` is full. */
export class BatchedOutput {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly out: Writable) {}

  write = async (chunk: Buffer | string): Promise<void> => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.chunks.push(buffer);
    this.bytes += buffer.length;
    if (this.bytes >= WRITE_BATCH_BYTES) await this.flush();
  };

  async flush(): Promise<void> {
    if (this.bytes === 0) return;
    const batch =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.bytes);
    this.chunks = [];
    this.bytes = 0;
    if (this.out.destroyed) throw new OutputClosedError();
    if (!this.out.write(batch)) await drained(this.out);
  }
}

/**
 * Writes the whole backup from `source`: the header, every table's rows, the sequences, the
 * closing line. The caller runs it inside one snapshot and ends `out` afterwards.
 */
export async function writeDump(
  source: DumpSource,
  out: Writable,
  options: DumpOptions = {},
): Promise<DumpSummary> {
  const output = new BatchedOutput(out);
  const [version] = await source.query<{ server_version: string }>('show server_version');
  const migrations = await appliedMigrations(source.query);
  if (migrations.length === 0) throw new NothingToBackUpError();
  await output.write(
    headerText({
      format: FORMAT_VERSION,
      rampartVersion: VERSION,
      serverVersion: version?.server_version ?? 'unknown',
      createdAt: (options.clock ?? systemClock)(),
      migrations,
    }),
  );
  const tables: DumpSummary['tables'] = [];
  for (const table of await listTables(source.query)) {
    await output.write(`--\n-- Data for Name: ${table.name}; Type: TABLE DATA; Schema: public\n--\n\n`);
    await output.write(`${copyLine(table.name, table.columns)}\n`);
    const rows = await source.copyOut(table, output.write);
    await output.write(`${END_OF_COPY}\n\n`);
    tables.push({ name: table.name, rows });
  }
  const sequences = await listSequences(source.query);
  if (sequences.length > 0) await output.write('--\n-- Sequence values\n--\n\n');
  for (const sequence of sequences) {
    const [state] = await source.query<{ last_value: string; is_called: boolean }>(
      `select last_value::text as last_value, is_called from public.${quoteIdent(sequence)}`,
    );
    if (state) await output.write(`${setvalLine(sequence, state.last_value, state.is_called)}\n`);
  }
  await output.write(`\n${LAST_LINE}\n`);
  await output.flush();
  return { migrations, tables, sequences: sequences.length };
}

/** The columns of a COPY statement, quoted. */
export function columnList(table: TableInfo): string {
  return table.columns.map(quoteIdent).join(', ');
}

/**
 * Backs up the Rampart database that `clientConfig` reaches to `out` (not ended here), in one
 * REPEATABLE READ READ ONLY transaction: every table as of the same moment, rows streamed from
 * `COPY … TO STDOUT` so that memory stays bounded at any size.
 */
export async function dumpDatabase(
  clientConfig: pg.ClientConfig,
  out: Writable,
  options: DumpOptions = {},
): Promise<DumpSummary> {
  const client = new pg.Client(clientConfig);
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const source: DumpSource = {
      query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[],
      copyOut: async (table, write) => {
        const stream = client.query(
          copyTo(`COPY public.${quoteIdent(table.name)} (${columnList(table)}) TO STDOUT`),
        );
        for await (const chunk of stream) await write(chunk as Buffer);
        return stream.rowCount;
      },
    };
    const summary = await writeDump(source, out, options);
    await client.query('commit');
    return summary;
  } finally {
    await client.end().catch(() => {});
  }
}
