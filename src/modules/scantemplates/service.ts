import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { DiscoveryTemplate, ScanKind } from '../../scanning/types.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { BUILT_IN_TEMPLATES } from './built-in.js';
import type { ScanTemplateRepository } from './repository.js';
import type { ScanTemplate, ScanTemplateInput } from './types.js';

/** Whether a scan of the organisation uses the template (it may then not be deleted). */
export type TemplateInUse = (organizationId: string, templateId: string) => Promise<boolean>;

/**
 * Scan templates: the built-in ones every organisation has, and an organisation's own, which its
 * Admins create, change and delete. A template in use by a scan cannot be deleted.
 */
export class ScanTemplateService {
  constructor(
    private readonly repo: ScanTemplateRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly inUse: TemplateInUse,
  ) {}

  /** Built-in templates first, then the organisation's own by name. */
  async list(ctx: ServiceContext, kind?: ScanKind): Promise<ScanTemplate[]> {
    const builtIn = BUILT_IN_TEMPLATES.filter((t) => !kind || t.kind === kind);
    return [...builtIn, ...(await this.repo.list(ctx.organizationId, kind))];
  }

  /** The template, or a 404 problem. */
  async get(ctx: ServiceContext, id: string): Promise<ScanTemplate> {
    const template = await this.find(ctx, id);
    if (!template) throw AppError.of(Problems.NotFound, `No scan template ${id} in this organisation.`);
    return template;
  }

  async find(ctx: ServiceContext, id: string): Promise<ScanTemplate | undefined> {
    return BUILT_IN_TEMPLATES.find((t) => t.id === id) ?? (await this.repo.find(ctx.organizationId, id));
  }

  async create(ctx: ServiceContext, input: ScanTemplateInput): Promise<ScanTemplate> {
    const name = await this.checkName(ctx, 'Discovery', input.name);
    const template = await this.repo.insert(
      ctx.organizationId,
      {
        id: uuidv7(),
        kind: 'Discovery',
        name,
        description: input.description?.trim() || null,
        settings: checkSettings(input.settings),
      },
      ctx.userId ?? null,
      this.clock(),
    );
    await this.audit.record(
      ctx,
      'scan-template.created',
      { type: 'scan-template', id: template.id },
      { name },
    );
    return template;
  }

  async update(ctx: ServiceContext, id: string, input: ScanTemplateInput): Promise<ScanTemplate> {
    const current = await this.get(ctx, id);
    if (current.builtIn) throw builtInRefusal(current);
    const name = await this.checkName(ctx, current.kind, input.name, id);
    const template = await this.repo.update(
      ctx.organizationId,
      id,
      { name, description: input.description?.trim() || null, settings: checkSettings(input.settings) },
      this.clock(),
    );
    if (!template) throw AppError.of(Problems.NotFound, `No scan template ${id} in this organisation.`);
    await this.audit.record(ctx, 'scan-template.updated', { type: 'scan-template', id }, { name });
    return template;
  }

  async delete(ctx: ServiceContext, id: string): Promise<void> {
    const current = await this.get(ctx, id);
    if (current.builtIn) throw builtInRefusal(current);
    if (await this.inUse(ctx.organizationId, id))
      throw AppError.of(
        Problems.Conflict,
        `The scan template '${current.name}' is used by a scan; give the scan another template first.`,
      );
    await this.repo.delete(ctx.organizationId, id);
    await this.audit.record(
      ctx,
      'scan-template.deleted',
      { type: 'scan-template', id },
      { name: current.name },
    );
  }

  private async checkName(
    ctx: ServiceContext,
    kind: ScanKind,
    raw: string,
    exceptId?: string,
  ): Promise<string> {
    const name = raw.trim();
    if (name.length === 0) throw invalid('name', 'A template needs a name.');
    if (BUILT_IN_TEMPLATES.some((t) => t.kind === kind && t.name.toLowerCase() === name.toLowerCase()))
      throw AppError.of(Problems.Conflict, `'${name}' is the name of a built-in template.`);
    if (await this.repo.nameTaken(ctx.organizationId, kind, name, exceptId))
      throw AppError.of(Problems.Conflict, `A ${kind} template named '${name}' exists already.`);
    return name;
  }
}

function builtInRefusal(t: ScanTemplate): AppError {
  return AppError.of(
    Problems.Conflict,
    `'${t.name}' is a built-in template and cannot be changed; create a template of your own.`,
  );
}

/** Rules the schema cannot say: a node must be able to keep the per-host limit within the global one. */
function checkSettings(s: DiscoveryTemplate): DiscoveryTemplate {
  if (s.perHostInFlight > s.maxInFlight)
    throw invalid(
      ['settings', 'perHostInFlight'],
      `PerHostInFlight (${s.perHostInFlight}) cannot exceed MaxInFlight (${s.maxInFlight}).`,
    );
  return { ...s, ports: [...new Set(s.ports)] };
}
