import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { parsePortList } from '../../scanning/ports/index.js';
import type { DiscoveryTemplate, ScanKind, SystemTemplate, WebTemplate } from '../../scanning/types.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { BUILT_IN_TEMPLATES } from './built-in.js';
import type { ScanTemplateRepository } from './repository.js';
import type { ScanTemplate, ScanTemplateInput, ScanTemplateOf, TemplateSettings } from './types.js';

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

  /** The template of that kind: 404 when absent, 400 naming `field` when it is another kind's. */
  async getOf<K extends ScanKind>(
    ctx: ServiceContext,
    id: string,
    kind: K,
    field = 'templateId',
  ): Promise<ScanTemplateOf<K>> {
    const template = await this.get(ctx, id);
    if (template.kind !== kind)
      throw invalid(field, `'${template.name}' is a ${template.kind} template, not a ${kind} one.`);
    return template as ScanTemplateOf<K>;
  }

  async find(ctx: ServiceContext, id: string): Promise<ScanTemplate | undefined> {
    return BUILT_IN_TEMPLATES.find((t) => t.id === id) ?? (await this.repo.find(ctx.organizationId, id));
  }

  async create(ctx: ServiceContext, input: ScanTemplateInput): Promise<ScanTemplate> {
    const kind = input.kind ?? 'Discovery';
    const name = await this.checkName(ctx, kind, input.name);
    const template = await this.repo.insert(
      ctx.organizationId,
      {
        id: uuidv7(),
        kind,
        name,
        description: input.description?.trim() || null,
        settings: checkSettings(kind, input.settings),
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
    if ((input.kind ?? 'Discovery') !== current.kind)
      throw invalid('kind', `The template is a ${current.kind} template; its kind cannot change.`);
    const name = await this.checkName(ctx, current.kind, input.name, id);
    const template = await this.repo.update(
      ctx.organizationId,
      id,
      {
        name,
        description: input.description?.trim() || null,
        settings: checkSettings(current.kind, input.settings),
      },
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

/** The settings of a kind, checked by its rules. */
function checkSettings<K extends ScanKind>(kind: K, settings: unknown): TemplateSettings[K] {
  if (kind === 'System') return checkSystemSettings(settings as SystemTemplate) as TemplateSettings[K];
  if (kind === 'Web') return checkWebSettings(settings as WebTemplate) as TemplateSettings[K];
  return checkDiscoverySettings(settings as DiscoveryTemplate) as TemplateSettings[K];
}

/** Rules the schema cannot say: a port list a node can read, budgets that nest. */
export function checkSystemSettings(s: SystemTemplate): SystemTemplate {
  const ports = s.ports.trim().toLowerCase();
  if (ports !== 'top1000' && ports !== 'all') {
    try {
      parsePortList(ports);
    } catch (error) {
      throw invalid(
        ['settings', 'ports'],
        `is not top1000, all or a port list: ${(error as Error).message}.`,
      );
    }
  }
  if (s.perHostInFlight > s.maxInFlight)
    throw invalid(
      ['settings', 'perHostInFlight'],
      `PerHostInFlight (${s.perHostInFlight}) cannot exceed MaxInFlight (${s.maxInFlight}).`,
    );
  if (s.portBudgetMs > s.hostBudgetMs)
    throw invalid(['settings', 'portBudgetMs'], 'PortBudgetMs cannot exceed HostBudgetMs.');
  if (s.hostBudgetMs > s.runBudgetMs)
    throw invalid(['settings', 'hostBudgetMs'], 'HostBudgetMs cannot exceed RunBudgetMs.');
  return { ...s, ports };
}

export function checkWebSettings(s: WebTemplate): WebTemplate {
  if (s.requestTimeoutMs > s.urlBudgetMs)
    throw invalid(['settings', 'requestTimeoutMs'], 'RequestTimeoutMs cannot exceed UrlBudgetMs.');
  if (s.urlBudgetMs > s.runBudgetMs)
    throw invalid(['settings', 'urlBudgetMs'], 'UrlBudgetMs cannot exceed RunBudgetMs.');
  return { ...s };
}

/** Rules the schema cannot say: a node must be able to keep the per-host limit within the global one. */
function checkDiscoverySettings(s: DiscoveryTemplate): DiscoveryTemplate {
  if (s.perHostInFlight > s.maxInFlight)
    throw invalid(
      ['settings', 'perHostInFlight'],
      `PerHostInFlight (${s.perHostInFlight}) cannot exceed MaxInFlight (${s.maxInFlight}).`,
    );
  return { ...s, ports: [...new Set(s.ports)] };
}
