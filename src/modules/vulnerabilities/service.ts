import type { Kysely, Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { JsonArrayOf } from '../../lib/json-rows.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ServiceContext } from '../context.js';
import type { StagedVulnerability, VulnerabilityImportRepository } from './import-repository.js';
import type { EnrichScope, VulnerabilityRepository } from './repository.js';
import type { Vulnerability } from './types.js';

export type { StagedVulnerability, StagedVulnerabilityInput } from './import-repository.js';
export type { Vulnerability } from './types.js';

/** A vulnerability a report named, as its import merged it: what its findings' risk reads. */
export interface ImportedVulnerability {
  /** Its key (vulnerabilityKey), which the report's findings were staged with. */
  key: string;
  id: string;
  /** The CVSS score the risk score starts from (v3, else v4, else v2). */
  cvssScore: string | null;
  epssPercentile: string | null;
  kev: boolean;
  kevDueDate: string | null;
}

/** What a report or a person says about a vulnerability. */
export interface VulnerabilityInput {
  source: string;
  ruleId?: string;
  cveIds?: string[];
  aliases?: string[];
  title: string;
  description?: string;
  solution?: string;
  cweIds?: string[];
  severity: Severity;
  cvss3Vector?: string;
  cvss3Score?: number;
  references?: string[];
  /** Public intelligence, when the source carries it (demo data, feeds). */
  epssScore?: number;
  epssPercentile?: number;
  kev?: boolean;
  kevDueDate?: string;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;
const TEXT_CAP = 32_768;

/**
 * Identity: the first CVE when there is one (so every tool's report of it is one entry), else
 * the tool's own rule id, else (a finding entered by hand with neither) its title.
 */
export function vulnerabilityKey(
  input: Pick<VulnerabilityInput, 'source' | 'ruleId' | 'title'> & { cveIds: string[] },
): string {
  if (input.cveIds[0]) return `cve:${input.cveIds[0]}`;
  if (input.ruleId) return `rule:${input.source.toLowerCase()}:${input.ruleId}`;
  return `title:${input.source.toLowerCase()}:${input.title.trim().toLowerCase().replace(/\s+/g, ' ')}`;
}

export class VulnerabilityService {
  constructor(
    private readonly repo: VulnerabilityRepository,
    private readonly imports: VulnerabilityImportRepository,
    private readonly clock: Clock,
  ) {}

  async resolve(ctx: ServiceContext, input: VulnerabilityInput): Promise<Vulnerability> {
    const cveIds = [...new Set((input.cveIds ?? []).map((c) => c.trim().toUpperCase()))].sort();
    const bad = cveIds.find((c) => !CVE.test(c));
    if (bad) throw invalid('cveIds', `'${bad}' is not a CVE id (CVE-YYYY-NNNN)`);
    const title = input.title.trim();
    if (!title) throw invalid('title', 'is required');
    return this.repo.upsert(ctx.organizationId, uuidv7(), this.clock(), {
      key: vulnerabilityKey({ source: input.source, ruleId: input.ruleId, title, cveIds }),
      source: input.source,
      pluginId: input.ruleId ?? null,
      cveIds,
      aliases: [...new Set([...(input.aliases ?? []), ...(input.ruleId ? [input.ruleId] : [])])].sort(),
      title: title.slice(0, 500),
      description: input.description?.slice(0, TEXT_CAP) ?? null,
      solution: input.solution?.slice(0, TEXT_CAP) ?? null,
      cweIds: input.cweIds ?? [],
      severity: input.severity,
      cvss3Vector: input.cvss3Vector ?? null,
      cvss3Score: input.cvss3Score ?? null,
      references: (input.references ?? []).slice(0, 100),
      epssScore: input.epssScore ?? null,
      epssPercentile: input.epssPercentile ?? null,
      kev: input.kev ?? false,
      kevDueDate: input.kevDueDate ?? null,
    });
  }

  async get(ctx: ServiceContext, id: string): Promise<Vulnerability> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No vulnerability ${id} in your organisation.`);
    return row;
  }

  /** The entry for a scanner rule id (the original service's PluginGuidId). */
  async byPluginId(ctx: ServiceContext, pluginId: string): Promise<Vulnerability> {
    const row = await this.repo.findByPluginId(ctx.organizationId, pluginId);
    if (!row)
      throw AppError.of(
        Problems.NotFound,
        `No vulnerability with plugin id ${pluginId} in your organisation.`,
      );
    return row;
  }

  /** Ids of at most `limit` vulnerabilities that carry the CVE (findings' Cve filter). */
  idsWithCve(organizationId: string, cve: string, limit: number): Promise<string[]> {
    return this.repo.idsWithCve(organizationId, cve, limit);
  }

  async list(
    ctx: ServiceContext,
    filter: { cve?: string; search?: string; kev?: boolean },
    pageSize: number,
    afterId?: string,
  ): Promise<{ items: Vulnerability[]; more: boolean }> {
    const rows = await this.repo.listPage(ctx.organizationId, filter, pageSize + 1, afterId);
    return { items: rows.slice(0, pageSize), more: rows.length > pageSize };
  }

  /**
   * Copies public intelligence (CVSS, EPSS, KEV, CWE, references) into the organisation's
   * vulnerabilities in scope; returns the ids that changed, whose findings need re-scoring.
   */
  enrich(organizationId: string, scope: EnrichScope, trx?: Kysely<DB> | Transaction<DB>): Promise<string[]> {
    return this.repo.enrichFromIntel(organizationId, scope, this.clock(), trx);
  }

  // ---- scanner-report imports (the imports module runs them; vulnerabilities own the rows) ----

  /** Stages the vulnerabilities a report names while it streams in. */
  stageFromImport(
    organizationId: string,
    importId: string,
    vulnerabilities: JsonArrayOf<StagedVulnerability>,
  ) {
    return this.imports.stage(organizationId, importId, vulnerabilities);
  }

  /**
   * Upserts an import's staged vulnerabilities into the knowledge base and enriches them from
   * public intelligence, inside the import's transaction. Answers the ids the enrichment changed
   * (their findings are re-scored) and the vulnerabilities by key with what their findings' risk
   * reads, as pages read on demand: they are to be read inside the same transaction.
   */
  async mergeImport(
    organizationId: string,
    importId: string,
    source: string,
    seenAt: Date,
    trx: Transaction<DB>,
  ): Promise<{ vulnerabilities: AsyncIterable<ImportedVulnerability[]>; enriched: string[] }> {
    await this.imports.merge(organizationId, importId, source, seenAt, trx);
    // Before they are read: the findings' risk scores and due dates read the enriched values.
    const enriched = await this.enrich(organizationId, { importId }, trx);
    return { vulnerabilities: this.imports.merged(organizationId, importId, trx), enriched };
  }

  /** The imports that have vulnerabilities staged: what the imports' sweep looks at. */
  stagedImports(): Promise<{ organizationId: string; importId: string }[]> {
    return this.imports.stagedImports();
  }

  /** Removes an import's staged vulnerabilities (after its merge, or when it failed). */
  clearImport(organizationId: string, importId: string): Promise<void> {
    return this.imports.clear(organizationId, importId);
  }
}
