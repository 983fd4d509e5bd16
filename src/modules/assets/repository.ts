import { type Kysely, sql, type Transaction } from 'kysely';
import type { AssetKind, DB } from '../../db/schema.js';
import { joinableFindings } from '../findings/queries.js';
import type { Identifier } from './identity.js';
import type { Asset, AssetFacts, AssetPatch, AssetWithFindings, HostService } from './types.js';

/** Every column of an Asset, under its domain name: rows need no mapping (lists, CSV export). */
const COLUMNS = [
  'id',
  'organization_id as organizationId',
  'kind',
  'name',
  'friendly_name as friendlyName',
  'hostname',
  'fqdn',
  'domain_name as domainName',
  'ip_addresses as ipAddresses',
  'mac_addresses as macAddresses',
  'operating_system as operatingSystem',
  'url',
  'criticality',
  'confidentiality',
  'integrity',
  'availability',
  'owner_user_id as ownerUserId',
  'internet_facing as internetFacing',
  'tags',
  'sources',
  'first_seen_at as firstSeenAt',
  'last_seen_at as lastSeenAt',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

/** The columns a merge folds a report into. */
const FACT_COLUMNS = [
  'id',
  'hostname',
  'fqdn',
  'domain_name as domainName',
  'operating_system as operatingSystem',
  'ip_addresses as ipAddresses',
  'mac_addresses as macAddresses',
  'tags',
  'sources',
] as const;

export interface AssetWrite {
  kind: AssetKind;
  name: string;
  friendlyName?: string | null;
  hostname?: string | null;
  fqdn?: string | null;
  domainName?: string | null;
  ipAddresses: string[];
  macAddresses: string[];
  operatingSystem?: string | null;
  url?: string | null;
  criticality?: number;
  internetFacing?: boolean;
  tags: string[];
  sources: string[];
  seenAt: Date;
}

export interface AssetListFilter {
  kind?: AssetKind;
  tag?: string;
  search?: string;
  internetFacing?: boolean;
  criticalityMin?: number;
  /** Only assets with at least one IP address (the original service's hosts). */
  withAddress?: boolean;
}

type Db = Kysely<DB> | Transaction<DB>;

/** The row of a new asset, created at `at` (the application's clock). */
function newAssetRow(organizationId: string, id: string, a: AssetWrite, at: Date) {
  return {
    organization_id: organizationId,
    id,
    kind: a.kind,
    name: a.name,
    friendly_name: a.friendlyName ?? null,
    hostname: a.hostname ?? null,
    fqdn: a.fqdn ?? null,
    domain_name: a.domainName ?? null,
    ip_addresses: a.ipAddresses,
    mac_addresses: a.macAddresses,
    operating_system: a.operatingSystem ?? null,
    url: a.url ?? null,
    criticality: a.criticality ?? 3,
    internet_facing: a.internetFacing ?? false,
    tags: a.tags,
    sources: a.sources,
    first_seen_at: a.seenAt,
    last_seen_at: a.seenAt,
    created_at: at,
    updated_at: at,
  };
}

/** A host service as the domain reads it (HostService). */
const SERVICE_COLUMNS = [
  'id',
  'port',
  'protocol',
  'name',
  'product',
  'version',
  'cpe',
  'banner',
  'first_seen_at as firstSeenAt',
  'last_seen_at as lastSeenAt',
] as const;

export class AssetRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Serialises identity resolution within an organisation, so two reports of one new host make one asset. */
  async lockIdentity(organizationId: string, trx: Transaction<DB>): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${`assets:${organizationId}`}))`.execute(trx);
  }

  findById(organizationId: string, id: string, db: Db = this.db): Promise<Asset | undefined> {
    return db
      .selectFrom('assets')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The assets that hold any of these identifiers, with which identifier matched. */
  findByIdentifiers(
    organizationId: string,
    identifiers: Identifier[],
    db: Db = this.db,
  ): Promise<{ kind: string; value: string; assetId: string }[]> {
    if (identifiers.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('asset_identifiers')
      .select(['kind', 'value', 'asset_id as assetId'])
      .where('organization_id', '=', organizationId)
      .where((eb) =>
        eb.or(identifiers.map((i) => eb.and([eb('kind', '=', i.kind), eb('value', '=', i.value)]))),
      )
      .execute();
  }

  async insert(
    organizationId: string,
    id: string,
    a: AssetWrite,
    at: Date,
    db: Db = this.db,
  ): Promise<Asset> {
    return db
      .insertInto('assets')
      .values(newAssetRow(organizationId, id, a, at))
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Folds a new report into an asset: identifiers and labels accumulate, facts move forward. */
  async merge(organizationId: string, id: string, a: AssetWrite, at: Date, db: Db = this.db): Promise<Asset> {
    return db
      .updateTable('assets')
      .set({
        hostname: sql`coalesce(${a.hostname ?? null}, hostname)`,
        fqdn: sql`coalesce(${a.fqdn ?? null}, fqdn)`,
        domain_name: sql`coalesce(${a.domainName ?? null}, domain_name)`,
        operating_system: sql`coalesce(${a.operatingSystem ?? null}, operating_system)`,
        ip_addresses: sql`array(select distinct unnest(ip_addresses || ${a.ipAddresses}::text[]) order by 1)`,
        mac_addresses: sql`array(select distinct unnest(mac_addresses || ${a.macAddresses}::text[]) order by 1)`,
        tags: sql`array(select distinct unnest(tags || ${a.tags}::text[]) order by 1)`,
        sources: sql`array(select distinct unnest(sources || ${a.sources}::text[]) order by 1)`,
        last_seen_at: sql`greatest(last_seen_at, ${a.seenAt})`,
        first_seen_at: sql`least(first_seen_at, ${a.seenAt})`,
        updated_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** The assets claiming any of these identifiers, in one query (imports resolve many at once). */
  async findByIdentifierList(
    organizationId: string,
    identifiers: Identifier[],
    db: Db,
  ): Promise<{ kind: string; value: string; assetId: string }[]> {
    if (identifiers.length === 0) return [];
    const result = await sql<{ kind: string; value: string; assetId: string }>`
      select i.kind, i.value, i.asset_id as "assetId" from asset_identifiers i
      join unnest(${identifiers.map((x) => x.kind)}::text[], ${identifiers.map((x) => x.value)}::text[]) as w(kind, value)
        on i.kind = w.kind and i.value = w.value
      where i.organization_id = ${organizationId}`.execute(db);
    return result.rows;
  }

  /** Many new assets in one statement. */
  async insertMany(
    organizationId: string,
    rows: { id: string; write: AssetWrite }[],
    at: Date,
    db: Db,
  ): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('assets')
      .values(rows.map(({ id, write }) => newAssetRow(organizationId, id, write, at)))
      .execute();
  }

  /** merge() for many assets in one statement. */
  async mergeMany(
    organizationId: string,
    rows: { id: string; write: AssetWrite }[],
    at: Date,
    db: Db,
  ): Promise<void> {
    if (rows.length === 0) return;
    const data = rows.map(({ id, write: a }) => ({
      id,
      hostname: a.hostname ?? null,
      fqdn: a.fqdn ?? null,
      domain_name: a.domainName ?? null,
      operating_system: a.operatingSystem ?? null,
      ip_addresses: a.ipAddresses,
      mac_addresses: a.macAddresses,
      tags: a.tags,
      sources: a.sources,
      seen_at: a.seenAt.toISOString(),
    }));
    await sql`
      update assets a set
        hostname = coalesce(r.hostname, a.hostname),
        fqdn = coalesce(r.fqdn, a.fqdn),
        domain_name = coalesce(r.domain_name, a.domain_name),
        operating_system = coalesce(r.operating_system, a.operating_system),
        ip_addresses = array(select distinct unnest(a.ip_addresses || r.ip_addresses) order by 1),
        mac_addresses = array(select distinct unnest(a.mac_addresses || r.mac_addresses) order by 1),
        tags = array(select distinct unnest(a.tags || r.tags) order by 1),
        sources = array(select distinct unnest(a.sources || r.sources) order by 1),
        last_seen_at = greatest(a.last_seen_at, r.seen_at),
        first_seen_at = least(a.first_seen_at, r.seen_at),
        updated_at = ${at}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(data)}::jsonb) as r(id uuid, hostname text, fqdn text,
        domain_name text, operating_system text, ip_addresses text[], mac_addresses text[], tags text[],
        sources text[], seen_at timestamptz)
      where a.organization_id = ${organizationId} and a.id = r.id`.execute(db);
  }

  /** What a merge may change of these assets (imports count the assets they really update). */
  factsOf(organizationId: string, ids: string[], db: Db): Promise<AssetFacts[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('assets')
      .select(FACT_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  }

  /** addIdentifiers() for many assets in one statement. */
  async addIdentifierList(
    organizationId: string,
    rows: { assetId: string; identifier: Identifier }[],
    db: Db,
  ): Promise<void> {
    if (rows.length === 0) return;
    await sql`
      insert into asset_identifiers (organization_id, kind, value, asset_id)
      select ${organizationId}::uuid, kind, value, asset_id
      from unnest(${rows.map((r) => r.identifier.kind)}::text[], ${rows.map((r) => r.identifier.value)}::text[],
        ${rows.map((r) => r.assetId)}::uuid[]) as w(kind, value, asset_id)
      on conflict (organization_id, kind, value) do nothing`.execute(db);
  }

  /** Claims identifiers for an asset; one already claimed by another asset stays with it. */
  async addIdentifiers(organizationId: string, assetId: string, identifiers: Identifier[], db: Db = this.db) {
    if (identifiers.length === 0) return;
    await db
      .insertInto('asset_identifiers')
      .values(
        identifiers.map((i) => ({
          organization_id: organizationId,
          kind: i.kind,
          value: i.value,
          asset_id: assetId,
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'kind', 'value']).doNothing())
      .execute();
  }

  update(organizationId: string, id: string, patch: AssetPatch, at: Date): Promise<Asset | undefined> {
    return this.db
      .updateTable('assets')
      .set({
        // Only the fields the patch names, each to its column.
        ...('friendlyName' in patch ? { friendly_name: patch.friendlyName } : {}),
        ...('operatingSystem' in patch ? { operating_system: patch.operatingSystem } : {}),
        ...('criticality' in patch ? { criticality: patch.criticality } : {}),
        ...('confidentiality' in patch ? { confidentiality: patch.confidentiality } : {}),
        ...('integrity' in patch ? { integrity: patch.integrity } : {}),
        ...('availability' in patch ? { availability: patch.availability } : {}),
        ...('ownerUserId' in patch ? { owner_user_id: patch.ownerUserId } : {}),
        ...('internetFacing' in patch ? { internet_facing: patch.internetFacing } : {}),
        ...('tags' in patch ? { tags: patch.tags } : {}),
        updated_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('assets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  private filtered(organizationId: string, f: AssetListFilter) {
    let q = this.db.selectFrom('assets').where('organization_id', '=', organizationId);
    if (f.kind) q = q.where('kind', '=', f.kind);
    if (f.tag) q = q.where(sql<boolean>`tags @> array[${f.tag}]::text[]`);
    if (f.internetFacing !== undefined) q = q.where('internet_facing', '=', f.internetFacing);
    if (f.criticalityMin !== undefined) q = q.where('criticality', '>=', f.criticalityMin);
    if (f.withAddress) q = q.where(sql<boolean>`cardinality(ip_addresses) > 0`);
    if (f.search) {
      const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) =>
        eb.or([
          eb('name', 'ilike', like),
          eb('friendly_name', 'ilike', like),
          eb('fqdn', 'ilike', like),
          eb('url', 'ilike', like),
          eb(sql<string>`array_to_string(ip_addresses, ' ')`, 'ilike', like),
        ]),
      );
    }
    return q;
  }

  /**
   * One page ordered by lower(name), id, after the keyset cursor, each asset with its open
   * findings' count and highest risk score, in the same statement (a lateral join on the
   * findings module's relation, one index lookup per asset of the page).
   */
  async listPage(
    organizationId: string,
    f: AssetListFilter,
    limit: number,
    after?: { name: string; id: string },
  ): Promise<AssetWithFindings[]> {
    let q = this.filtered(organizationId, f)
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom(joinableFindings('f'))
            .select([
              sql<string>`count(*)`.as('openFindings'),
              sql<string | null>`max(f.risk_score)`.as('topRisk'),
            ])
            .where('f.organization_id', '=', organizationId)
            .whereRef('f.asset_id', '=', 'assets.id')
            .where('f.state', 'in', ['Open', 'Reopened'])
            .as('c'),
        (join) => join.onTrue(),
      )
      .select(COLUMNS)
      .select(['c.openFindings', 'c.topRisk']);
    if (after) {
      q = q.where((eb) =>
        eb(
          eb.tuple(sql<string>`lower(name)`, eb.ref('id')),
          '>',
          eb.tuple(eb.val(after.name), eb.val(after.id)),
        ),
      );
    }
    const rows = await q.orderBy(sql`lower(name)`).orderBy('id').limit(limit).execute();
    return rows.map(({ openFindings, topRisk, ...asset }) => ({
      ...asset,
      openFindings: Number(openFindings ?? 0),
      topRisk: topRisk === null || topRisk === undefined ? null : Number(topRisk),
    }));
  }

  /** Adds and removes tags on every matching asset in one statement; returns how many changed. */
  async bulkTags(
    organizationId: string,
    f: AssetListFilter,
    add: string[],
    remove: string[],
    at: Date,
  ): Promise<number> {
    const ids = this.filtered(organizationId, f).select('id');
    const next = sql<
      string[]
    >`array(select distinct t from unnest(tags || ${add}::text[]) as t where t <> all(${remove}::text[]) order by 1)`;
    const result = await this.db
      .updateTable('assets')
      .set({ tags: next, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .where(sql<boolean>`tags is distinct from ${next}`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Every matching asset by name, read in chunks (exports). */
  stream(organizationId: string, f: AssetListFilter): AsyncIterableIterator<Asset> {
    return this.filtered(organizationId, f)
      .select(COLUMNS)
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .stream(1000);
  }

  /** Offset paging, for the original service's withStartIndex/andPageSize calls. */
  listOffset(organizationId: string, f: AssetListFilter, offset: number, limit: number): Promise<Asset[]> {
    return this.filtered(organizationId, f)
      .select(COLUMNS)
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .offset(offset)
      .limit(limit)
      .execute();
  }

  async count(organizationId: string, f: AssetListFilter): Promise<number> {
    const row = await this.filtered(organizationId, f)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Assets of the organisation whose name contains the text (findings' free-text search). */
  async idsNamed(organizationId: string, text: string, limit: number): Promise<string[]> {
    const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db
      .selectFrom('assets')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name', 'ilike', like)
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** The distinct tags of the organisation's assets, in order, at most `limit`. */
  async tagNames(organizationId: string, limit: number): Promise<string[]> {
    const rows = await sql<{ tag: string }>`
      select distinct t.tag from assets a cross join lateral unnest(a.tags) as t(tag)
      where a.organization_id = ${organizationId} order by t.tag limit ${limit}`.execute(this.db);
    return rows.rows.map((r) => r.tag);
  }

  /** Records a service seen on an asset: the same port and protocol is the same service. */
  upsertService(
    organizationId: string,
    id: string,
    assetId: string,
    s: Omit<HostService, 'id' | 'firstSeenAt' | 'lastSeenAt'> & { seenAt: Date },
  ): Promise<HostService & { inserted: boolean }> {
    return this.db
      .insertInto('asset_services')
      .values({
        organization_id: organizationId,
        id,
        asset_id: assetId,
        port: s.port,
        protocol: s.protocol,
        name: s.name,
        product: s.product,
        version: s.version,
        cpe: s.cpe,
        banner: s.banner,
        first_seen_at: s.seenAt,
        last_seen_at: s.seenAt,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'asset_id', 'port', 'protocol']).doUpdateSet({
          name: sql`coalesce(excluded.name, asset_services.name)`,
          product: sql`coalesce(excluded.product, asset_services.product)`,
          version: sql`coalesce(excluded.version, asset_services.version)`,
          cpe: sql`coalesce(excluded.cpe, asset_services.cpe)`,
          banner: sql`coalesce(excluded.banner, asset_services.banner)`,
          last_seen_at: sql`greatest(asset_services.last_seen_at, excluded.last_seen_at)`,
        }),
      )
      .returning([...SERVICE_COLUMNS, sql<boolean>`(xmax = 0)`.as('inserted')])
      .executeTakeFirstOrThrow();
  }

  services(organizationId: string, assetId: string): Promise<HostService[]> {
    return this.db
      .selectFrom('asset_services')
      .select(SERVICE_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('asset_id', '=', assetId)
      .orderBy('port')
      .orderBy('protocol')
      .execute();
  }

  identifiersOf(organizationId: string, assetId: string) {
    return this.db
      .selectFrom('asset_identifiers')
      .select(['kind', 'value'])
      .where('organization_id', '=', organizationId)
      .where('asset_id', '=', assetId)
      .orderBy('kind')
      .orderBy('value')
      .execute();
  }
}
