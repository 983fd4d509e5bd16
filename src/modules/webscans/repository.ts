import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { WebUrlResult } from '../../scanning/types.js';
import type { ImportCounts, WebRunOutcome } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

/** The URLs each web run reported, and what became of each run's results (the scans are saved scans). */
export class WebRunRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The run's own row, made when it is queued (a Verify run's findings with it). */
  async addRun(
    organizationId: string,
    scanId: string,
    runId: string,
    verifyFindingIds: string[] | null,
    now: Date,
    db: Db,
  ) {
    await db
      .insertInto('web_runs')
      .values({
        organization_id: organizationId,
        run_id: runId,
        scan_id: scanId,
        verify_finding_ids: verifyFindingIds ? JSON.stringify(verifyFindingIds) : null,
        created_at: now,
      })
      .execute();
  }

  async runOutcome(organizationId: string, runId: string, db: Db = this.db): Promise<WebRunOutcome | null> {
    const r = await db
      .selectFrom('web_runs')
      .select(['verify_finding_ids', 'import_id', 'counts', 'ingest_error'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .executeTakeFirst();
    if (!r) return null;
    return {
      verifyFindingIds: (r.verify_finding_ids as string[] | null) ?? null,
      importId: r.import_id,
      counts: (r.counts as ImportCounts | null) ?? null,
      ingestError: r.ingest_error,
    };
  }

  async setRunImport(
    organizationId: string,
    runId: string,
    outcome: { importId: string; counts: ImportCounts } | { error: string },
  ) {
    await this.db
      .updateTable('web_runs')
      .set(
        'error' in outcome
          ? { ingest_error: outcome.error }
          : { import_id: outcome.importId, counts: JSON.stringify(outcome.counts), ingest_error: null },
      )
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .execute();
  }

  async runUrls(organizationId: string, runId: string): Promise<WebUrlResult[]> {
    const rows = await this.db
      .selectFrom('web_run_urls')
      .select('result')
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .orderBy('url')
      .execute();
    return rows.map((r) => r.result as WebUrlResult);
  }
}
