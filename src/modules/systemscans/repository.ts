import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { SystemHostResult } from '../../scanning/types.js';
import type { BackportNote } from '../scanresults/service.js';
import type { SystemRunRecord } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

/** What each system run was asked and made, and the hosts each run reported (the scans are saved scans). */
export class SystemRunRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insertRun(
    organizationId: string,
    r: { runId: string; scanId: string; verifyFindingIds: string[] | null; ports: string },
    db: Db,
  ) {
    await db
      .insertInto('system_scan_runs')
      .values({
        organization_id: organizationId,
        run_id: r.runId,
        scan_id: r.scanId,
        verify_finding_ids: r.verifyFindingIds,
        ports: r.ports,
        counts: null,
        backports: '[]',
      })
      .execute();
  }

  async findRun(
    organizationId: string,
    runId: string,
    db: Db = this.db,
  ): Promise<SystemRunRecord | undefined> {
    const r = await db
      .selectFrom('system_scan_runs')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .executeTakeFirst();
    if (!r) return undefined;
    return {
      runId: r.run_id,
      scanId: r.scan_id,
      verifyFindingIds: r.verify_finding_ids,
      ports: r.ports,
      importId: r.import_id,
      counts: (r.counts as Record<string, number> | null) ?? null,
      backports: (r.backports as BackportNote[]) ?? [],
      ingestError: r.ingest_error,
      ingestedAt: r.ingested_at,
    };
  }

  async recordIngest(
    organizationId: string,
    runId: string,
    outcome: {
      importId: string | null;
      counts: Record<string, number> | null;
      backports: BackportNote[];
      error: string | null;
      at: Date;
    },
  ) {
    await this.db
      .updateTable('system_scan_runs')
      .set({
        import_id: outcome.importId,
        counts: outcome.counts ? JSON.stringify(outcome.counts) : null,
        backports: JSON.stringify(outcome.backports),
        ingest_error: outcome.error,
        ingested_at: outcome.at,
      })
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .execute();
  }

  async runHosts(organizationId: string, runId: string): Promise<SystemHostResult[]> {
    const rows = await this.db
      .selectFrom('system_run_hosts')
      .select(['result'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .orderBy(sql`address::inet`)
      .execute();
    return rows.map((r) => r.result as SystemHostResult);
  }
}
