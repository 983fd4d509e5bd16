import type { Kysely, Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ServiceContext } from '../context.js';
import type { EnrichScope, VulnerabilityRepository, VulnerabilityRow } from './repository.js';

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
    private readonly clock: Clock,
  ) {}

  async resolve(ctx: ServiceContext, input: VulnerabilityInput): Promise<VulnerabilityRow> {
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

  async get(ctx: ServiceContext, id: string): Promise<VulnerabilityRow> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No vulnerability ${id} in your organisation.`);
    return row;
  }

  /** The entry for a scanner rule id (the original service's PluginGuidId). */
  async byPluginId(ctx: ServiceContext, pluginId: string): Promise<VulnerabilityRow> {
    const row = await this.repo.findByPluginId(ctx.organizationId, pluginId);
    if (!row)
      throw AppError.of(
        Problems.NotFound,
        `No vulnerability with plugin id ${pluginId} in your organisation.`,
      );
    return row;
  }

  async list(
    ctx: ServiceContext,
    filter: { cve?: string; search?: string; kev?: boolean },
    pageSize: number,
    afterId?: string,
  ) {
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
}
