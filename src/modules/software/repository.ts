import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { joinableFindings } from '../findings/queries.js';
import type { Software, SoftwareFacts } from './types.js';

export interface SoftwareWrite extends SoftwareFacts {
  seenAt: Date;
}

export interface SoftwareFilter {
  search?: string;
  category?: string;
}

/** Every column a Software has, under its domain name: rows need no mapping. */
const COLUMNS = [
  's.id',
  's.asset_id as assetId',
  's.name',
  's.version',
  's.vendor',
  's.category',
  's.cpe',
  's.purl',
  's.first_seen_at as firstSeenAt',
  's.last_seen_at as lastSeenAt',
] as const;

export class SoftwareRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Records software seen on an asset: the same name (any case) and version is the same row. */
  upsert(organizationId: string, id: string, assetId: string, s: SoftwareWrite) {
    return this.db
      .insertInto('asset_software')
      .values({
        organization_id: organizationId,
        id,
        asset_id: assetId,
        name: s.name,
        version: s.version,
        vendor: s.vendor,
        category: s.category,
        cpe: s.cpe,
        purl: s.purl,
        first_seen_at: s.seenAt,
        last_seen_at: s.seenAt,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'asset_id', 'name_key', 'version']).doUpdateSet({
          vendor: sql`coalesce(excluded.vendor, asset_software.vendor)`,
          category: sql`excluded.category`,
          cpe: sql`coalesce(excluded.cpe, asset_software.cpe)`,
          purl: sql`coalesce(excluded.purl, asset_software.purl)`,
          last_seen_at: sql`greatest(asset_software.last_seen_at, excluded.last_seen_at)`,
        }),
      )
      .returning(['id', sql<boolean>`(xmax = 0)`.as('inserted')])
      .executeTakeFirstOrThrow();
  }

  private filtered(organizationId: string, assetId: string, f: SoftwareFilter) {
    let q = this.db
      .selectFrom('asset_software as s')
      .where('s.organization_id', '=', organizationId)
      .where('s.asset_id', '=', assetId);
    if (f.search) {
      const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or([eb('s.name', 'ilike', like), eb('s.vendor', 'ilike', like)]));
    }
    if (f.category) q = q.where(sql<boolean>`lower(s.category) = lower(${f.category})`);
    return q;
  }

  // Open findings in this package on this asset, by severity. A finding that names no version
  // belongs to every installed version of its package.
  private withFindingCounts(organizationId: string, assetId: string, f: SoftwareFilter) {
    return this.filtered(organizationId, assetId, f)
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom(joinableFindings('f'))
            .select([
              sql<string>`count(*) filter (where f.effective_severity = 'Critical')`.as('critical'),
              sql<string>`count(*) filter (where f.effective_severity = 'High')`.as('high'),
              sql<string>`count(*) filter (where f.effective_severity = 'Medium')`.as('medium'),
              sql<string>`count(*) filter (where f.effective_severity = 'Low')`.as('low'),
            ])
            .where('f.organization_id', '=', organizationId)
            .where('f.asset_id', '=', assetId)
            .where('f.location_kind', '=', 'Package')
            .where(sql<boolean>`lower(f.package_name) = s.name_key`)
            .where(sql<boolean>`(f.package_version is null or f.package_version = s.version)`)
            .where('f.state', 'in', ['Open', 'Reopened'])
            .as('c'),
        (join) => join.onTrue(),
      )
      .select([...COLUMNS, 'c.critical', 'c.high', 'c.medium', 'c.low']);
  }

  /** A page by name (keyset on lower(name), version, id). */
  listPage(
    organizationId: string,
    assetId: string,
    f: SoftwareFilter,
    limit: number,
    after?: { name: string; version: string; id: string },
  ): Promise<Software[]> {
    let q = this.withFindingCounts(organizationId, assetId, f);
    if (after) {
      q = q.where(
        sql<boolean>`(s.name_key, s.version, s.id) > (${after.name}, ${after.version}, ${after.id}::uuid)`,
      );
    }
    return q.orderBy('s.name_key').orderBy('s.version').orderBy('s.id').limit(limit).execute();
  }

  /** Offset paging by name, for the original service's withStartIndex/andPageSize calls. */
  listOffset(
    organizationId: string,
    assetId: string,
    f: SoftwareFilter,
    offset: number,
    limit: number,
  ): Promise<Software[]> {
    return this.withFindingCounts(organizationId, assetId, f)
      .orderBy('s.name_key')
      .orderBy('s.version')
      .orderBy('s.id')
      .offset(offset)
      .limit(limit)
      .execute();
  }

  async count(organizationId: string, assetId: string, f: SoftwareFilter): Promise<number> {
    const row = await this.filtered(organizationId, assetId, f)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  findById(organizationId: string, assetId: string, id: string): Promise<Software | undefined> {
    return this.withFindingCounts(organizationId, assetId, {}).where('s.id', '=', id).executeTakeFirst();
  }

  async delete(organizationId: string, assetId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('asset_software')
      .where('organization_id', '=', organizationId)
      .where('asset_id', '=', assetId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
