import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { clearStaged, importsStagedIn } from '../imports/staging.js';
import type { SoftwareFacts } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Software a report found installed on an asset (by the asset's key), staged while it streams in. */
export interface StagedSoftware extends SoftwareFacts {
  assetKey: string;
}

/**
 * The software's side of a scanner-report import: the report's software staged in
 * import_software, then merged set-based into asset_software inside the import's one transaction.
 */
export class SoftwareImportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async stage(organizationId: string, importId: string, software: StagedSoftware[]) {
    if (software.length === 0) return;
    await this.db
      .insertInto('import_software')
      .values(
        software.map((s) => ({
          organization_id: organizationId,
          import_id: importId,
          asset_key: s.assetKey,
          name_key: s.name.toLowerCase(),
          version: s.version,
          name: s.name,
          vendor: s.vendor,
          category: s.category,
          cpe: s.cpe,
          purl: s.purl,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'import_id', 'asset_key', 'name_key', 'version']).doNothing(),
      )
      .execute();
  }

  /** Merges the staged software into the assets the import resolved (asset ids by staged key). */
  async merge(
    organizationId: string,
    importId: string,
    assets: { key: string; id: string }[],
    seenAt: Date,
    trx: Db,
  ): Promise<number> {
    const result = await sql`
      insert into asset_software (organization_id, id, asset_id, name, version, vendor, category, cpe, purl,
        first_seen_at, last_seen_at)
      select distinct on (a.asset_id, s.name_key, s.version) ${organizationId}::uuid, rampart_uuidv7(), a.asset_id, s.name,
        s.version, s.vendor, s.category, s.cpe, s.purl, ${seenAt}::timestamptz, ${seenAt}::timestamptz
      from import_software s
      join unnest(${assets.map((a) => a.key)}::text[], ${assets.map((a) => a.id)}::uuid[]) as a(asset_key, asset_id)
        on a.asset_key = s.asset_key
      where s.organization_id = ${organizationId} and s.import_id = ${importId}
      order by a.asset_id, s.name_key, s.version
      on conflict (organization_id, asset_id, name_key, version) do update set
        vendor = coalesce(excluded.vendor, asset_software.vendor),
        cpe = coalesce(excluded.cpe, asset_software.cpe),
        purl = coalesce(excluded.purl, asset_software.purl),
        last_seen_at = greatest(asset_software.last_seen_at, excluded.last_seen_at)`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  }

  /** The imports that have rows staged here: what a sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return importsStagedIn(this.db, ['import_software']);
  }

  clear(organizationId: string, importId: string, db: Db = this.db): Promise<void> {
    return clearStaged(db, ['import_software'], organizationId, importId);
  }
}
