import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { keysetPage } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AssetService } from '../assets/service.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { cursorKey } from '../paging.js';
import type { Page } from '../users/service.js';
import type { SoftwareImportRepository, StagedSoftware } from './import-repository.js';
import type { SoftwareFilter, SoftwareRepository } from './repository.js';
import type { Software } from './types.js';

export type { StagedSoftware } from './import-repository.js';
export type { Software } from './types.js';

/** What kind of software it is; clients filter by it. */
export const SOFTWARE_CATEGORIES = [
  'OperatingSystem',
  'Application',
  'OsPackage',
  'Library',
  'Firmware',
  'Other',
] as const;
export type SoftwareCategory = (typeof SOFTWARE_CATEGORIES)[number];

/** What a report or a person says is installed on an asset. */
export interface SoftwareInput {
  name: string;
  version?: string;
  vendor?: string;
  category?: SoftwareCategory;
  cpe?: string;
  purl?: string;
  seenAt?: Date;
}

const CPE = /^cpe:(2\.3:[aho]:|\/[aho]:)/;
const PURL = /^pkg:[a-z][a-z0-9.+-]*\/\S+$/i;

export class SoftwareService {
  constructor(
    private readonly repo: SoftwareRepository,
    private readonly imports: SoftwareImportRepository,
    private readonly assets: AssetService,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /** Records software installed on an asset: 'inserted' says whether it was new. */
  async observe(
    ctx: ServiceContext,
    assetId: string,
    input: SoftwareInput,
  ): Promise<{ software: Software; inserted: boolean }> {
    await this.assets.get(ctx, assetId);
    const name = input.name.trim();
    if (!name) throw invalid('name', 'must not be blank');
    if (input.cpe && !CPE.test(input.cpe)) throw invalid('cpe', 'is not a CPE name (cpe:2.3:… or cpe:/…)');
    if (input.purl && !PURL.test(input.purl))
      throw invalid('purl', 'is not a package URL (pkg:type/name@version)');
    const { id, inserted } = await this.repo.upsert(ctx.organizationId, uuidv7(), assetId, {
      name: name.slice(0, 255),
      version: input.version?.trim().slice(0, 100) ?? '',
      vendor: input.vendor?.trim().slice(0, 255) || null,
      category: input.category ?? 'Application',
      cpe: input.cpe ?? null,
      purl: input.purl ?? null,
      seenAt: input.seenAt ?? this.clock(),
    });
    const software = await this.repo.findById(ctx.organizationId, assetId, id);
    if (!software) throw new Error(`software ${id} vanished after it was written`);
    return { software, inserted };
  }

  async list(
    ctx: ServiceContext,
    assetId: string,
    filter: SoftwareFilter,
    pageSize: number,
    cursor?: string,
  ): Promise<Page<Software>> {
    await this.assets.get(ctx, assetId);
    const key = cursor ? cursorKey(cursor, ['Name', 'Version', 'Id']) : undefined;
    const after = key && { name: key.Name, version: key.Version, id: key.Id };
    const [rows, totalCount] = await Promise.all([
      this.repo.listPage(ctx.organizationId, assetId, filter, pageSize + 1, after),
      this.repo.count(ctx.organizationId, assetId, filter),
    ]);
    const keyOf = (s: Software) => ({ Name: s.name.toLowerCase(), Version: s.version, Id: s.id });
    return { ...keysetPage(rows, pageSize, keyOf), totalCount };
  }

  async listOffset(
    ctx: ServiceContext,
    assetId: string,
    filter: SoftwareFilter,
    offset: number,
    limit: number,
  ): Promise<{ items: Software[]; totalCount: number }> {
    await this.assets.get(ctx, assetId);
    const [items, totalCount] = await Promise.all([
      this.repo.listOffset(ctx.organizationId, assetId, filter, offset, limit),
      this.repo.count(ctx.organizationId, assetId, filter),
    ]);
    return { items, totalCount };
  }

  async remove(ctx: ServiceContext, assetId: string, id: string): Promise<void> {
    await this.assets.get(ctx, assetId);
    if (!(await this.repo.delete(ctx.organizationId, assetId, id)))
      throw AppError.of(Problems.NotFound, `No software ${id} on asset ${assetId}.`);
    await this.audit.record(ctx, 'software.deleted', { type: 'software', id }, { assetId });
  }

  // ---- scanner-report imports (the imports module runs them; software owns the rows) ----

  /** Stages the software a report found, on its assets by key, while it streams in. */
  stageFromImport(organizationId: string, importId: string, software: StagedSoftware[]) {
    return this.imports.stage(organizationId, importId, software);
  }

  /** Merges an import's staged software into the assets it resolved (their ids by staged key). */
  mergeImport(
    organizationId: string,
    importId: string,
    assets: { key: string; id: string }[],
    seenAt: Date,
    trx: Transaction<DB>,
  ): Promise<number> {
    return this.imports.merge(organizationId, importId, assets, seenAt, trx);
  }

  /** The imports that have software staged: what the imports' sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return this.imports.stagedImports();
  }

  /** Removes an import's staged software (after its merge, or when it failed). */
  clearImport(organizationId: string, importId: string): Promise<void> {
    return this.imports.clear(organizationId, importId);
  }
}
