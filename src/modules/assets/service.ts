import type { Transaction } from 'kysely';
import type { AssetKind, DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { keysetPage } from '../../lib/cursor.js';
import type { Listeners } from '../../lib/listeners.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { cursorKey } from '../paging.js';
import type { Page, UserService } from '../users/service.js';
import {
  type Identifier,
  identifiersOf,
  normaliseFqdn,
  normaliseHostname,
  normaliseImage,
  normaliseIp,
  normaliseMac,
  normaliseRepository,
  normaliseUrl,
} from './identity.js';
import type { AssetImportRepository, StagedService } from './import-repository.js';
import type { AssetListFilter, AssetRepository, AssetWrite } from './repository.js';
import type { Asset, AssetDetail, AssetFacts, AssetPatch, AssetWithFindings, HostService } from './types.js';

/** What a report or a person says about an asset. */
export interface AssetInput {
  kind: AssetKind;
  name?: string;
  friendlyName?: string;
  hostname?: string;
  fqdn?: string;
  ipAddresses?: string[];
  macAddresses?: string[];
  operatingSystem?: string;
  url?: string;
  image?: string;
  repository?: string;
  criticality?: number;
  internetFacing?: boolean;
  tags?: string[];
  source: string;
  seenAt?: Date;
}

/** An asset report, checked and normalised, ready to be matched and written. */
export interface PreparedAsset {
  identifiers: Identifier[];
  write: AssetWrite;
}

export type { MergedService, MergedServices, StagedService } from './import-repository.js';
export type { Asset, AssetDetail, AssetPatch, HostService } from './types.js';

/**
 * The names asset.updated audit records give the fields a patch changed (the columns' names,
 * as they always were).
 */
const AUDITED_FIELD: Record<keyof AssetPatch, string> = {
  friendlyName: 'friendly_name',
  criticality: 'criticality',
  confidentiality: 'confidentiality',
  integrity: 'integrity',
  availability: 'availability',
  ownerUserId: 'owner_user_id',
  internetFacing: 'internet_facing',
  tags: 'tags',
  operatingSystem: 'operating_system',
};

/** An asset a report described, as its import resolved it: what its findings' risk reads. */
export interface ImportedAsset {
  /** What identifies the asset in the report (the key it was staged under). */
  key: string;
  id: string;
  criticality: number;
  internetFacing: boolean;
}

const MAX_TAGS = 50;

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort();

/** Two reports of one asset as one: later facts win, lists accumulate. */
function foldWrites(a: AssetWrite, b: AssetWrite): AssetWrite {
  return {
    ...a,
    hostname: b.hostname ?? a.hostname,
    fqdn: b.fqdn ?? a.fqdn,
    domainName: b.domainName ?? a.domainName,
    operatingSystem: b.operatingSystem ?? a.operatingSystem,
    ipAddresses: union(a.ipAddresses, b.ipAddresses),
    macAddresses: union(a.macAddresses, b.macAddresses),
    tags: union(a.tags, b.tags),
    sources: union(a.sources, b.sources),
    seenAt: new Date(Math.max(a.seenAt.getTime(), b.seenAt.getTime())),
  };
}

/** Whether merging `write` into an asset with these facts changes any (mirrors repo.mergeMany). */
function changesFacts(before: AssetFacts, write: AssetWrite): boolean {
  const replaces = (next: string | null | undefined, current: string | null) =>
    next != null && next !== current;
  const adds = (next: string[], current: string[]) => next.some((v) => !current.includes(v));
  return (
    replaces(write.hostname, before.hostname) ||
    replaces(write.fqdn, before.fqdn) ||
    replaces(write.domainName, before.domainName) ||
    replaces(write.operatingSystem, before.operatingSystem) ||
    adds(write.ipAddresses, before.ipAddresses) ||
    adds(write.macAddresses, before.macAddresses) ||
    adds(write.tags, before.tags) ||
    adds(write.sources, before.sources)
  );
}

function cleanTags(tags: string[] = []): string[] {
  const out = [...new Set(tags.map((t) => t.trim()).filter((t) => t.length > 0 && t.length <= 64))].sort();
  if (out.length > MAX_TAGS)
    throw AppError.of(Problems.ValidationFailed, `An asset can carry at most ${MAX_TAGS} tags.`);
  return out;
}

/**
 * Raised when what an asset means to the business (criticality, exposure) changes: findings
 * follow it to re-score their risk.
 */
export type RiskContextChanged = Listeners<[organizationId: string, assetId: string]>;

export class AssetService {
  constructor(
    private readonly repo: AssetRepository,
    private readonly imports: AssetImportRepository,
    private readonly users: UserService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly riskContextChanged: RiskContextChanged,
  ) {}

  /**
   * Finds the asset a report describes, by any identifier it shares with a known one (FQDN,
   * address, MAC, URL, image, repository), and folds the report into it; creates the asset when
   * none matches.
   */
  async observe(ctx: ServiceContext, input: AssetInput): Promise<{ asset: Asset; created: boolean }> {
    const prepared = this.prepare(input);
    const result = await this.repo.transaction((trx) => this.observePrepared(ctx, prepared, trx));
    if (result.created) {
      await this.audit.record(
        ctx,
        'asset.created',
        { type: 'asset', id: result.asset.id },
        { name: prepared.write.name, source: input.source },
      );
    }
    return result;
  }

  /**
   * The same inside a caller's transaction (an import writes all its assets in one). Identity is
   * locked per organisation for the rest of the transaction, so two reports of one new host
   * cannot create it twice.
   */
  async observePrepared(
    ctx: ServiceContext,
    prepared: PreparedAsset,
    trx: Transaction<DB>,
  ): Promise<{ asset: Asset; created: boolean }> {
    await this.repo.lockIdentity(ctx.organizationId, trx);
    const { identifiers, write } = prepared;
    const matches = await this.repo.findByIdentifiers(ctx.organizationId, identifiers, trx);
    // The strongest identifier that matched decides which asset this is.
    const match = identifiers
      .map((i) => matches.find((m) => m.kind === i.kind && m.value === i.value))
      .find((m) => m !== undefined);
    const asset = match
      ? await this.repo.merge(ctx.organizationId, match.assetId, write, this.clock(), trx)
      : await this.repo.insert(ctx.organizationId, uuidv7(), write, this.clock(), trx);
    await this.repo.addIdentifiers(ctx.organizationId, asset.id, identifiers, trx);
    return { asset, created: !match };
  }

  /**
   * observePrepared for many reports at once (an import's hosts): one lookup of every identifier,
   * then one insert of the new assets and one merge of the known ones. Reports that share an
   * identifier with an earlier one in the list become the same asset. Answers each report's
   * asset id, in order.
   */
  async observeMany(
    ctx: ServiceContext,
    prepared: PreparedAsset[],
    trx: Transaction<DB>,
  ): Promise<{ ids: string[]; created: Set<string>; updated: Set<string> }> {
    const org = ctx.organizationId;
    await this.repo.lockIdentity(org, trx);
    const key = (i: Identifier) => `${i.kind}\u0000${i.value}`;
    const owner = new Map<string, string>();
    const all = prepared.flatMap((p) => p.identifiers);
    for (let i = 0; i < all.length; i += 5000) {
      for (const row of await this.repo.findByIdentifierList(org, all.slice(i, i + 5000), trx))
        owner.set(key(row as Identifier), row.assetId);
    }
    const created = new Set<string>();
    const updated = new Set<string>();
    const inserts = new Map<string, AssetWrite>();
    const merges: { id: string; write: AssetWrite }[] = [];
    const claims: { assetId: string; identifier: Identifier }[] = [];
    const ids = prepared.map((p) => {
      // The strongest identifier that matched decides which asset this is.
      const match = p.identifiers.map((i) => owner.get(key(i))).find((id) => id !== undefined);
      const id = match ?? uuidv7();
      if (!match) {
        created.add(id);
        inserts.set(id, p.write);
      } else merges.push({ id, write: p.write });
      for (const i of p.identifiers) {
        if (!owner.has(key(i))) owner.set(key(i), id);
        claims.push({ assetId: id, identifier: i });
      }
      return id;
    });
    const news = [...inserts].map(([id, write]) => ({ id, write }));
    // One row per asset in a statement: several reports of one asset are folded together first.
    const folded = new Map<string, AssetWrite>();
    for (const m of merges) {
      const before = folded.get(m.id);
      folded.set(m.id, before ? foldWrites(before, m.write) : m.write);
    }
    merges.length = 0;
    for (const [id, write] of folded) merges.push({ id, write });
    for (const id of await this.changedBy(org, merges, inserts, trx)) updated.add(id);
    const now = this.clock();
    for (let i = 0; i < news.length; i += 500)
      await this.repo.insertMany(org, news.slice(i, i + 500), now, trx);
    for (let i = 0; i < merges.length; i += 1000)
      await this.repo.mergeMany(org, merges.slice(i, i + 1000), now, trx);
    for (let i = 0; i < claims.length; i += 5000)
      await this.repo.addIdentifierList(org, claims.slice(i, i + 5000), trx);
    return { ids, created, updated };
  }

  // ---- scanner-report imports (the imports module runs them; assets own the rows) ----

  /** Stages a report's assets, each under the key that identifies it in the report. */
  stageFromImport(organizationId: string, importId: string, assets: { key: string; input: AssetInput }[]) {
    return this.imports.stageAssets(organizationId, importId, assets);
  }

  /** Stages the network services a report found, on its assets by key. */
  stageServicesFromImport(organizationId: string, importId: string, services: StagedService[]) {
    return this.imports.stageServices(organizationId, importId, services);
  }

  /**
   * Resolves an import's staged assets to assets (observeMany: matched by identifier, created
   * when new) inside the import's transaction; answers them by key, with the counts.
   */
  async mergeImport(
    ctx: ServiceContext,
    importId: string,
    seenAt: Date,
    trx: Transaction<DB>,
  ): Promise<{ assets: ImportedAsset[]; created: number; updated: number }> {
    const org = ctx.organizationId;
    const staged = await this.imports.staged(org, importId, trx);
    const { ids, created, updated } = await this.observeMany(
      ctx,
      staged.map((s) => this.prepare({ ...(s.input as unknown as AssetInput), seenAt })),
      trx,
    );
    await this.imports.setAssetIds(
      org,
      importId,
      staged.map((s, i) => ({ key: s.key, assetId: ids[i]! })),
      trx,
    );
    const assets = await this.imports.resolved(org, importId, trx);
    return { assets, created: created.size, updated: updated.size };
  }

  /**
   * Merges an import's staged services into its resolved assets' (after mergeImport); answers how
   * many it merged and those new to their asset (the first 100 of them).
   */
  mergeImportServices(organizationId: string, importId: string, seenAt: Date, trx: Transaction<DB>) {
    return this.imports.mergeServices(organizationId, importId, seenAt, trx);
  }

  /** The imports that have assets and services staged: what the imports' sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return this.imports.stagedImports();
  }

  /** Removes an import's staged assets and services (after its merge, or when it failed). */
  clearImport(organizationId: string, importId: string): Promise<void> {
    return this.imports.clear(organizationId, importId);
  }

  /**
   * The known assets a merge would change: a new name, address, OS, tag or source. Being seen
   * again (last seen) is not a change, so an identical re-import updates none.
   */
  private async changedBy(
    org: string,
    merges: { id: string; write: AssetWrite }[],
    inserts: Map<string, AssetWrite>,
    trx: Transaction<DB>,
  ): Promise<string[]> {
    const known = merges.filter((m) => !inserts.has(m.id));
    const changed: string[] = [];
    for (let i = 0; i < known.length; i += 1000) {
      const slice = known.slice(i, i + 1000);
      const facts = new Map(
        (
          await this.repo.factsOf(
            org,
            slice.map((m) => m.id),
            trx,
          )
        ).map((f) => [f.id, f]),
      );
      for (const m of slice) {
        const before = facts.get(m.id);
        if (before && changesFacts(before, m.write)) changed.push(m.id);
      }
    }
    return changed;
  }

  /** Checks what a report says of an asset and normalises it; throws a 400 naming the field. */
  prepare(input: AssetInput): PreparedAsset {
    const ipAddresses = (input.ipAddresses ?? []).map((ip) => normaliseIp(ip) ?? '').filter(Boolean);
    if (ipAddresses.length !== (input.ipAddresses ?? []).length)
      throw invalid('ipAddresses', 'holds a value that is not an IP address');
    const macAddresses = (input.macAddresses ?? []).map((m) => normaliseMac(m) ?? '').filter(Boolean);
    if (macAddresses.length !== (input.macAddresses ?? []).length)
      throw invalid('macAddresses', 'holds a value that is not a MAC address');
    const fqdn = input.fqdn ? normaliseFqdn(input.fqdn) : undefined;
    if (input.fqdn && !fqdn) throw invalid('fqdn', 'is not a fully qualified domain name');
    const hostname = input.hostname
      ? (normaliseHostname(input.hostname) ?? normaliseFqdn(input.hostname))
      : undefined;
    if (input.hostname && !hostname) throw invalid('hostname', 'is not a host name');
    const url = input.url ? normaliseUrl(input.url) : undefined;
    if (input.url && !url) throw invalid('url', 'is not an http(s) URL');
    if (input.kind === 'WebApplication' && !url) throw invalid('url', 'is required for a web application');
    const image = input.image ? normaliseImage(input.image) : undefined;
    if (input.image && !image) throw invalid('image', 'is not an image reference');
    if (input.kind === 'ContainerImage' && !image)
      throw invalid('image', 'is required for a container image');
    const repository = input.repository ? normaliseRepository(input.repository) : undefined;
    if (input.repository && !repository) throw invalid('repository', 'is not a repository');
    if (input.kind === 'CodeRepository' && !repository)
      throw invalid('repository', 'is required for a code repository');

    const identity = { kind: input.kind, fqdn, hostname, ipAddresses, macAddresses, url, image, repository };
    const identifiers = identifiersOf(identity);
    if (identifiers.length === 0) {
      throw AppError.of(
        Problems.ValidationFailed,
        'An asset needs something that identifies it: IpAddresses, Fqdn, Hostname or MacAddresses for a host, Url for a web application, Image for a container image, Repository for a code repository.',
      );
    }
    const name = (
      input.name?.trim() ||
      fqdn ||
      hostname ||
      ipAddresses[0] ||
      url ||
      image ||
      repository ||
      ''
    ).slice(0, 255);
    return {
      identifiers,
      write: {
        kind: input.kind,
        name,
        friendlyName: input.friendlyName ?? null,
        hostname: hostname ?? (fqdn ? fqdn.split('.')[0] : null),
        fqdn: fqdn ?? null,
        domainName: fqdn?.includes('.') ? fqdn.slice(fqdn.indexOf('.') + 1) : null,
        ipAddresses,
        macAddresses,
        operatingSystem: input.operatingSystem?.slice(0, 255) ?? null,
        url: url ?? null,
        criticality: input.criticality,
        internetFacing: input.internetFacing,
        tags: cleanTags(input.tags),
        sources: [input.source],
        seenAt: input.seenAt ?? this.clock(),
      },
    };
  }

  /** Records a service (port/protocol) seen on a host, merging with what is known of it. */
  async observeService(
    ctx: ServiceContext,
    assetId: string,
    input: {
      port: number;
      protocol: 'tcp' | 'udp';
      name?: string;
      product?: string;
      version?: string;
      cpe?: string;
      banner?: string;
      seenAt?: Date;
    },
  ): Promise<HostService & { inserted: boolean }> {
    const asset = await this.get(ctx, assetId);
    if (asset.kind !== 'Host') throw invalid('port', 'services belong to hosts');
    if (!Number.isInteger(input.port) || input.port < 0 || input.port > 65535)
      throw invalid('port', 'must be 0 to 65535');
    if (input.cpe && !/^cpe:(2\.3:|\/)[aho]/.test(input.cpe))
      throw invalid('cpe', 'is not a CPE name (cpe:2.3:… or cpe:/…)');
    const row = await this.repo.upsertService(ctx.organizationId, uuidv7(), asset.id, {
      port: input.port,
      protocol: input.protocol,
      name: input.name?.slice(0, 100) ?? null,
      product: input.product?.slice(0, 255) ?? null,
      version: input.version?.slice(0, 100) ?? null,
      cpe: input.cpe ?? null,
      // Banners come from the network: keep enough to fingerprint, not whatever a peer sends.
      banner: input.banner?.slice(0, 2048) ?? null,
      seenAt: input.seenAt ?? this.clock(),
    });
    return row;
  }

  async services(ctx: ServiceContext, assetId: string): Promise<HostService[]> {
    await this.get(ctx, assetId);
    return this.repo.services(ctx.organizationId, assetId);
  }

  async get(ctx: ServiceContext, id: string): Promise<AssetDetail> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No asset ${id} in your organisation.`);
    return { ...row, identifiers: await this.repo.identifiersOf(ctx.organizationId, id) };
  }

  /** Ids of at most `limit` assets whose name contains the text (findings' free-text search). */
  idsNamed(organizationId: string, text: string, limit: number): Promise<string[]> {
    return this.repo.idsNamed(organizationId, text, limit);
  }

  /** The tags the organisation's assets carry, in order, at most `limit` (filter choices). */
  tagNames(ctx: ServiceContext, limit: number): Promise<string[]> {
    return this.repo.tagNames(ctx.organizationId, limit);
  }

  async list(
    ctx: ServiceContext,
    filter: AssetListFilter,
    pageSize: number,
    cursor?: string,
  ): Promise<Page<AssetWithFindings>> {
    const key = cursor ? cursorKey(cursor, ['Name', 'Id']) : undefined;
    const after = key && { name: key.Name, id: key.Id };
    const rows = await this.repo.listPage(ctx.organizationId, filter, pageSize + 1, after);
    return {
      ...keysetPage(rows, pageSize, (a) => ({ Name: a.name.toLowerCase(), Id: a.id })),
      totalCount: await this.repo.count(ctx.organizationId, filter),
    };
  }

  /** Tags (or untags) every asset that matches the filter, in one statement. */
  async bulkTag(
    ctx: ServiceContext,
    filter: AssetListFilter,
    add: string[],
    remove: string[],
  ): Promise<number> {
    const plus = cleanTags(add);
    const minus = cleanTags(remove);
    if (plus.length === 0 && minus.length === 0) throw invalid('add', 'give tags to Add or Remove');
    const changed = await this.repo.bulkTags(ctx.organizationId, filter, plus, minus, this.clock());
    await this.audit.record(ctx, 'assets.tagged', null, { add: plus, remove: minus, changed });
    return changed;
  }

  /** Every asset that matches, by name, as an async stream (CSV export). */
  stream(ctx: ServiceContext, filter: AssetListFilter): AsyncIterableIterator<Asset> {
    return this.repo.stream(ctx.organizationId, filter);
  }

  /** The CSV download of the assets list: recorded in the audit log, then the stream. */
  async *export(ctx: ServiceContext, filter: AssetListFilter): AsyncGenerator<Asset, void, undefined> {
    await this.audit.exportDownloaded(ctx, 'assets', filter);
    yield* this.stream(ctx, filter);
  }

  async listOffset(
    ctx: ServiceContext,
    filter: AssetListFilter,
    offset: number,
    limit: number,
  ): Promise<{ items: Asset[]; totalCount: number }> {
    const [items, totalCount] = await Promise.all([
      this.repo.listOffset(ctx.organizationId, filter, offset, limit),
      this.repo.count(ctx.organizationId, filter),
    ]);
    return { items, totalCount };
  }

  async update(
    ctx: ServiceContext,
    id: string,
    patch: Omit<AssetPatch, 'tags'> & { tags?: string[] },
  ): Promise<AssetDetail> {
    if (patch.ownerUserId) await this.users.get(ctx, patch.ownerUserId);
    const row = await this.repo.update(
      ctx.organizationId,
      id,
      { ...patch, ...(patch.tags ? { tags: cleanTags(patch.tags) } : {}) },
      this.clock(),
    );
    if (!row) throw AppError.of(Problems.NotFound, `No asset ${id} in your organisation.`);
    // Criticality and exposure are part of every finding's risk score on this asset.
    if (patch.criticality !== undefined || patch.internetFacing !== undefined)
      await this.riskContextChanged.notify(ctx.organizationId, id);
    await this.audit.record(
      ctx,
      'asset.updated',
      { type: 'asset', id },
      {
        fields: Object.keys(patch).map((k) => AUDITED_FIELD[k as keyof AssetPatch]),
      },
    );
    return this.get(ctx, id);
  }

  async delete(ctx: ServiceContext, id: string): Promise<void> {
    if (!(await this.repo.delete(ctx.organizationId, id)))
      throw AppError.of(Problems.NotFound, `No asset ${id} in your organisation.`);
    await this.audit.record(ctx, 'asset.deleted', { type: 'asset', id });
  }
}
