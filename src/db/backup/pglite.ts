import { PassThrough, type Writable } from 'node:stream';
import { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Query } from './catalog.js';
import {
  columnList,
  type DumpOptions,
  type DumpSource,
  type DumpSummary,
  OutputClosedError,
  writeDump,
} from './dump.js';
import { quoteIdent } from './format.js';
import { type RestoreOptions, type RestoreSummary, restoreDatabase } from './restore.js';

// PGlite has no COPY … TO STDOUT stream: COPY … TO '/dev/blob' hands back the whole output as one
// Blob. A table is copied in ranges of this many heap pages (a TID range scan, PostgreSQL 14+), so
// that what is held at once is about one range's rows, not the table's.
const PAGES_PER_RANGE = 2048; // 16 MB of heap pages

export interface PgliteExportOptions extends DumpOptions {
  /** Heap pages copied at once (default PAGES_PER_RANGE; tests make it small). */
  pagesPerRange?: number;
}

/**
 * Writes a backup of an old embedded database, a PGlite data directory, to `out` (not ended
 * here), in the same format as dumpDatabase: how an installation's data moves from PGlite to the
 * PostgreSQL server. The directory must not be in use: the caller holds its lock.
 *
 * Memory: PGlite returns each COPY as one Blob, copied out of its WebAssembly memory, so a range of
 * PAGES_PER_RANGE pages costs that range's text a few times over (PostgreSQL's output file in the
 * WebAssembly memory, which never shrinks, the Blob, the Buffer written); values stored out of
 * line (TOAST) come on top of their page. PGlite itself costs far more: in bench:backup a process
 * that only opens a data directory peaks at about 750 MB RSS, and the export of 100,000 findings
 * at about 830 MB (10,000: 810 MB), where dumpDatabase on PostgreSQL stays under 200 MB.
 */
export async function exportPgliteDataDir(
  dataDir: string,
  out: Writable,
  options: PgliteExportOptions = {},
): Promise<DumpSummary> {
  const step = options.pagesPerRange ?? PAGES_PER_RANGE;
  // The serving thread's small buffer pool (pglite-worker.mjs): the export reads every page once.
  const db = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
  });
  try {
    const query: Query = async <R>(text: string, params?: unknown[]) =>
      (await db.query<R>(text, params)).rows;
    const source: DumpSource = {
      query,
      copyOut: async (table, write) => {
        const [size] = await query<{ pages: number }>(
          `select (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int as pages`,
          [`public.${quoteIdent(table.name)}`],
        );
        const pages = size?.pages ?? 0;
        let rows = 0;
        for (let first = 0; first < pages; first += step) {
          const result = await db.query(
            `COPY (select ${columnList(table)} from public.${quoteIdent(table.name)}
                    where ctid >= '(${first},0)'::tid and ctid < '(${first + step},0)'::tid)
               TO '/dev/blob'`,
          );
          rows += result.affectedRows ?? 0;
          if (result.blob && result.blob.size > 0) await write(Buffer.from(await result.blob.arrayBuffer()));
        }
        return rows;
      },
    };
    await db.query('begin isolation level repeatable read read only');
    const summary = await writeDump(source, out, options);
    await db.query('commit');
    return summary;
  } finally {
    await db.close();
  }
}

/**
 * Moves an old embedded database into PostgreSQL: exports the PGlite data directory and restores
 * it into the empty database `clientConfig` reaches, streaming from one to the other (no file in
 * between, memory as for each alone). Either one failing stops both; the restore then changes
 * nothing. The data directory is only read.
 */
export async function restorePgliteDataDir(
  dataDir: string,
  clientConfig: pg.ClientConfig,
  options: PgliteExportOptions & RestoreOptions = {},
): Promise<RestoreSummary> {
  const pipe = new PassThrough();
  const exporting = exportPgliteDataDir(dataDir, pipe, options).then(
    () => {
      pipe.end();
    },
    (error: unknown) => {
      // The restore then fails reading; the export's own error is the one to report.
      pipe.destroy(error as Error);
      throw error;
    },
  );
  const restoring = restoreDatabase(clientConfig, pipe, options).catch((error: unknown) => {
    // A refused or failed restore stops reading: end the export too, which would wait forever.
    pipe.destroy();
    throw error;
  });
  const [exported, restored] = await Promise.allSettled([exporting, restoring]);
  if (restored.status === 'rejected') {
    // The export stopped because the restore did: the restore's error says why.
    if (exported.status === 'rejected' && !(exported.reason instanceof OutputClosedError))
      throw exported.reason;
    throw restored.reason;
  }
  if (exported.status === 'rejected') throw exported.reason;
  return restored.value;
}
