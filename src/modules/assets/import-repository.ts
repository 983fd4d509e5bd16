import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { clearStaged, importsStagedIn } from '../imports/staging.js';

/** Where an import's hosts and services wait, services first: they name their hosts. */
const STAGING_TABLES = ['import_services', 'import_assets'] as const;

type Db = Kysely<DB> | Transaction<DB>;

/** A network service a report found on an asset, staged while the report streams in. */
export interface StagedService {
  assetKey: string;
  port: number;
  protocol: string;
  name: string | null;
  product: string | null;
  version: string | null;
  cpe: string | null;
  banner: string | null;
}

/** A service an import added to an asset (its port and protocol were not on the asset before). */
export interface MergedService {
  assetId: string;
  assetName: string;
  address: string | null;
  port: number;
  protocol: string;
  name: string | null;
  product: string | null;
  version: string | null;
}

/** What merging an import's services did: how many rows, and those new to their asset. */
export interface MergedServices {
  merged: number;
  fresh: { count: number; assetIds: string[]; services: MergedService[] };
}

/**
 * The assets' side of a scanner-report import: the report's assets (import_assets, by the key
 * that identifies each in the report) and services (import_services) staged while it streams
 * in, then resolved to assets and merged inside the import's one transaction.
 */
export class AssetImportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async stageAssets(organizationId: string, importId: string, assets: { key: string; input: unknown }[]) {
    if (assets.length === 0) return;
    await this.db
      .insertInto('import_assets')
      .values(
        assets.map((a) => ({
          organization_id: organizationId,
          import_id: importId,
          asset_key: a.key,
          input: JSON.stringify(a.input),
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'import_id', 'asset_key']).doNothing())
      .execute();
  }

  async stageServices(organizationId: string, importId: string, services: StagedService[]) {
    if (services.length === 0) return;
    await this.db
      .insertInto('import_services')
      .values(
        services.map((s) => ({
          organization_id: organizationId,
          import_id: importId,
          asset_key: s.assetKey,
          port: s.port,
          protocol: s.protocol,
          name: s.name,
          product: s.product,
          version: s.version,
          cpe: s.cpe,
          banner: s.banner,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'import_id', 'asset_key', 'port', 'protocol']).doUpdateSet({
          name: sql`coalesce(excluded.name, import_services.name)`,
          product: sql`coalesce(excluded.product, import_services.product)`,
          version: sql`coalesce(excluded.version, import_services.version)`,
          cpe: sql`coalesce(excluded.cpe, import_services.cpe)`,
          banner: sql`coalesce(excluded.banner, import_services.banner)`,
        }),
      )
      .execute();
  }

  staged(organizationId: string, importId: string, db: Db) {
    return db
      .selectFrom('import_assets')
      .select(['asset_key as key', 'input'])
      .where('organization_id', '=', organizationId)
      .where('import_id', '=', importId)
      .orderBy('asset_key')
      .execute();
  }

  async setAssetIds(
    organizationId: string,
    importId: string,
    rows: { key: string; assetId: string }[],
    trx: Db,
  ): Promise<void> {
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await sql`
        update import_assets s set asset_id = w.asset_id
        from unnest(${chunk.map((r) => r.key)}::text[], ${chunk.map((r) => r.assetId)}::uuid[]) as w(asset_key, asset_id)
        where s.organization_id = ${organizationId} and s.import_id = ${importId} and s.asset_key = w.asset_key`.execute(
        trx,
      );
    }
    // Staging tables fill up within seconds; without fresh statistics the planner takes them for
    // empty and joins them row by row (the services merge below, bench:import).
    await sql`analyze import_assets`.execute(trx);
  }

  /** The import's resolved assets by key, with what their findings' risk scores read. */
  async resolved(organizationId: string, importId: string, trx: Db) {
    const rows = await trx
      .selectFrom('import_assets as s')
      .innerJoin('assets as a', (j) =>
        j.onRef('a.organization_id', '=', 's.organization_id').onRef('a.id', '=', 's.asset_id'),
      )
      .select(['s.asset_key', 's.asset_id', 'a.criticality', 'a.internet_facing'])
      .where('s.organization_id', '=', organizationId)
      .where('s.import_id', '=', importId)
      .execute();
    return rows.map((r) => ({
      key: r.asset_key,
      id: r.asset_id!,
      criticality: r.criticality,
      internetFacing: r.internet_facing,
    }));
  }

  /**
   * Merges the staged services into the assets the import resolved. Two staged assets can be one
   * asset (a host spelt two ways in one report), so their services are folded to one row per
   * asset, port and protocol first: one statement may not update the same row twice. Answers how
   * many rows it merged and which of them are new to their asset (port and protocol not there
   * before): their count, the assets they are on, and the first `limit` of them.
   */
  async mergeServices(
    organizationId: string,
    importId: string,
    seenAt: Date,
    trx: Db,
    limit = 100,
  ): Promise<MergedServices> {
    const first = (column: string) =>
      sql`(array_agg(${sql.ref(`s.${column}`)} order by s.asset_key) filter (where ${sql.ref(`s.${column}`)} is not null))[1]`;
    // xmax is 0 on a row the upsert inserted, the updating transaction's id on one it updated.
    const { rows } = await sql<{
      merged: string;
      new_count: string;
      asset_ids: string[] | null;
      fresh: MergedService[] | null;
    }>`
      with staged as (
        select a.asset_id, s.port, s.protocol, ${first('name')} as name, ${first('product')} as product,
          ${first('version')} as version, ${first('cpe')} as cpe, ${first('banner')} as banner,
          (array_agg(a.input->'ipAddresses'->>0 order by s.asset_key))[1] as address
        from import_services s join import_assets a on a.organization_id = s.organization_id
          and a.import_id = s.import_id and a.asset_key = s.asset_key
        where s.organization_id = ${organizationId} and s.import_id = ${importId} and a.asset_id is not null
        group by a.asset_id, s.port, s.protocol
      ), upserted as (
        insert into asset_services (organization_id, id, asset_id, port, protocol, name, product, version, cpe,
          banner, first_seen_at, last_seen_at)
        select ${organizationId}::uuid, rampart_uuidv7(), asset_id, port, protocol, name, product, version, cpe,
          banner, ${seenAt}::timestamptz, ${seenAt}::timestamptz
        from staged
        on conflict (organization_id, asset_id, port, protocol) do update set
          name = coalesce(excluded.name, asset_services.name),
          product = coalesce(excluded.product, asset_services.product),
          version = coalesce(excluded.version, asset_services.version),
          cpe = coalesce(excluded.cpe, asset_services.cpe),
          banner = coalesce(excluded.banner, asset_services.banner),
          last_seen_at = greatest(asset_services.last_seen_at, excluded.last_seen_at)
        returning asset_id, port, protocol, name, product, version, (xmax = 0) as inserted
      ), fresh as (
        select u.*, a.name as asset_name, coalesce(st.address, a.ip_addresses[1]) as address
        from upserted u
        join assets a on a.organization_id = ${organizationId} and a.id = u.asset_id
        left join staged st on st.asset_id = u.asset_id and st.port = u.port and st.protocol = u.protocol
        where u.inserted
      )
      select (select count(*) from upserted) as merged,
        (select count(*) from fresh) as new_count,
        (select (array_agg(distinct asset_id))[1:1000] from fresh) as asset_ids,
        (select json_agg(json_build_object('assetId', f.asset_id, 'assetName', f.asset_name,
            'address', f.address, 'port', f.port, 'protocol', f.protocol, 'name', f.name,
            'product', f.product, 'version', f.version))
          from (select * from fresh order by address, port, protocol limit ${limit}) f) as fresh
    `.execute(trx);
    const r = rows[0]!;
    return {
      merged: Number(r.merged),
      fresh: { count: Number(r.new_count), assetIds: r.asset_ids ?? [], services: r.fresh ?? [] },
    };
  }

  /** The imports that have rows staged here: what a sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return importsStagedIn(this.db, STAGING_TABLES);
  }

  clear(organizationId: string, importId: string, db: Db = this.db): Promise<void> {
    return clearStaged(db, STAGING_TABLES, organizationId, importId);
  }
}
