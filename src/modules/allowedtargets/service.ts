import { lookup } from 'node:dns/promises';
import { ALLOWED_TARGET_KINDS } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { FieldIssue } from '../../problems/fields.js';
import {
  checkPolicyEntry,
  compilePolicy,
  countAddresses,
  entrySize,
  isLoopbackAddress,
  isRefusal,
  parseTarget,
  type Resolver,
} from '../../scanning/targets/index.js';
import type { ScanTarget, TargetPolicy, TargetRefusal } from '../../scanning/types.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { AllowedTargetRepository } from './repository.js';
import type { AllowedTarget, NewAllowedTarget, TargetVerdict } from './types.js';

/** Every scan carries the whole policy to its node: an organisation keeps it to a readable size. */
export const MAX_ENTRIES = 2000;
export const MAX_PAGE_SIZE = 1000;
const MAX_DESCRIPTION = 500;
/** How long saving a scan waits for a host-name target to resolve before leaving it to the node. */
const RESOLVE_TIMEOUT_MS = 2000;

/** The system's resolver, bounded: a name that does not answer in time is left to the node. */
async function systemResolve(name: string): Promise<string[]> {
  const timeout = new Promise<never>((_, reject) => {
    setTimeout(() => reject(new Error(`${name} did not resolve in time`)), RESOLVE_TIMEOUT_MS).unref();
  });
  const found = await Promise.race([lookup(name, { all: true }), timeout]);
  return found.map((a) => a.address);
}

type Row = NonNullable<Awaited<ReturnType<AllowedTargetRepository['delete']>>>;

export interface AllowedTargetPage {
  items: AllowedTarget[];
  nextCursor: string | null;
  totalCount: number;
}

/**
 * Where an organisation's scans may go. Admins keep the entries; the scan modules ask `policy`
 * for what a node checks and `assertAllowed` when a scan is saved or started.
 */
export class AllowedTargetsService {
  constructor(
    private readonly repo: AllowedTargetRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly options: {
      allowLoopback: boolean;
      /** Forward lookups of host-name targets when a scan is saved (default: the system's resolver). */
      resolve?: Resolver;
    },
  ) {}

  async list(ctx: ServiceContext, params: { pageSize: number; cursor?: string }): Promise<AllowedTargetPage> {
    const { pageSize, cursor } = params;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      throw invalid('pageSize', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    const after = cursor === undefined ? undefined : decodeCreatedAtCursor(cursor);
    if (cursor !== undefined && !after)
      throw invalid('cursor', 'is not valid; pass the NextCursor of a previous page');
    const rows = await this.repo.listPage(ctx.organizationId, pageSize + 1, after);
    const page = createdAtPage(rows.map(toAllowedTarget), pageSize);
    return { ...page, totalCount: await this.repo.count(ctx.organizationId) };
  }

  /** Adds an entry in its canonical form; 422 naming Target when the rules refuse it, 409 when it exists. */
  async create(ctx: ServiceContext, input: NewAllowedTarget): Promise<AllowedTarget> {
    if (!ALLOWED_TARGET_KINDS.includes(input.kind))
      throw invalid('kind', `must be one of ${ALLOWED_TARGET_KINDS.join(', ')}`);
    const description = input.description?.trim() || null;
    if (description && description.length > MAX_DESCRIPTION)
      throw invalid('description', `must have at most ${MAX_DESCRIPTION} characters`);
    const entry = checkPolicyEntry(input.kind, input.target, this.options.allowLoopback);
    if (isRefusal(entry)) throw refused([{ field: ['target'], refusal: entry }]);
    if ((await this.repo.count(ctx.organizationId)) >= MAX_ENTRIES)
      throw AppError.of(
        Problems.Conflict,
        `The organisation already keeps ${MAX_ENTRIES} allowed and excluded targets; remove some first.`,
      );
    const row = await this.repo.insert({
      organizationId: ctx.organizationId,
      id: uuidv7(),
      kind: input.kind,
      target: entry.target,
      description,
      createdBy: ctx.userId ?? null,
      createdAt: this.clock(),
    });
    if (!row)
      throw AppError.of(
        Problems.Conflict,
        `${entry.target} is already ${input.kind.toLowerCase()} for scans.`,
      );
    return this.audited(ctx, 'allowedtarget.created', row);
  }

  async remove(ctx: ServiceContext, id: string): Promise<AllowedTarget> {
    const row = await this.repo.delete(ctx.organizationId, id);
    if (!row)
      throw AppError.of(Problems.NotFound, `No allowed or excluded target ${id} in your organisation.`);
    return this.audited(ctx, 'allowedtarget.deleted', row);
  }

  /** Records a change of an entry in the audit log, and answers the entry. */
  private async audited(
    ctx: ServiceContext,
    action: 'allowedtarget.created' | 'allowedtarget.deleted',
    row: Row,
  ): Promise<AllowedTarget> {
    await this.audit.record(
      ctx,
      action,
      { type: 'allowedtarget', id: row.id },
      { kind: row.kind, target: row.target },
    );
    return toAllowedTarget(row);
  }

  /** The organisation's policy as a node checks it, the server's loopback switch included. */
  async policy(organizationId: string): Promise<TargetPolicy> {
    const rows = await this.repo.listTargets(organizationId);
    return {
      allowed: rows.filter((r) => r.kind === 'Allowed').map((r) => r.target),
      excluded: rows.filter((r) => r.kind === 'Excluded').map((r) => r.target),
      allowLoopback: this.options.allowLoopback,
    };
  }

  /** Each target's verdict and address count, and the count of all of them together. */
  async check(
    ctx: ServiceContext,
    targets: ScanTarget[],
    exclusions: string[],
  ): Promise<{ items: TargetVerdict[]; addressCount: number }> {
    const issues = exclusionIssues(exclusions, ['exclusions']);
    if (issues.length > 0) throw refused(issues);
    const compiled = compilePolicy(await this.policy(ctx.organizationId));
    const items = targets.map((target): TargetVerdict => {
      const own = target.exclude ?? [];
      const refusal =
        exclusionIssues(own, ['exclude'])[0]?.refusal ??
        compiled.checkTarget(target.range, [...own, ...exclusions]);
      return {
        range: target.range,
        allowed: refusal === null,
        rule: refusal?.rule ?? null,
        message: refusal?.message ?? null,
        addressCount: safeCount([target], exclusions),
      };
    });
    // The total counts every target that parses, allowed or not, each address once.
    const countable = targets.filter((_target, index) => items[index]!.rule !== 'Syntax');
    return { items, addressCount: safeCount(countable, exclusions) };
  }

  /**
   * Throws a 422 scan-target-refused problem naming every refused target by its pointer
   * (/ScanTargets/0/Range, /ScanTargets/0/Exclude/1, /Exclusions/2) and its rule.
   */
  async assertAllowed(ctx: ServiceContext, targets: ScanTarget[], exclusions: string[]): Promise<void> {
    if (targets.length === 0)
      throw refused([
        {
          field: ['scanTargets'],
          refusal: { rule: 'NotAllowed', message: 'A scan needs at least one target.' },
        },
      ]);
    const issues = exclusionIssues(exclusions, ['exclusions']);
    const compiled = compilePolicy(await this.policy(ctx.organizationId));
    targets.forEach((target, index) => {
      const own = target.exclude ?? [];
      const ownIssues = exclusionIssues(own, ['scanTargets', String(index), 'exclude']);
      issues.push(...ownIssues);
      const refusal = compiled.checkTarget(target.range, [...own, ...exclusions]);
      if (refusal)
        issues.push({ field: ['scanTargets', String(index), 'range'], refusal, text: target.range });
    });
    if (issues.length > 0) throw refused(issues);
    issues.push(...(await this.loopbackNames(targets)));
    if (issues.length > 0) throw refused(issues);
  }

  /**
   * Host-name targets that resolve to a loopback address, refused like `localhost` unless the
   * server allows loopback. A name that does not resolve now is not refused: the node resolves it
   * again before the scan and names it in the run when it does not.
   */
  private async loopbackNames(targets: ScanTarget[]): Promise<Refused[]> {
    if (this.options.allowLoopback) return [];
    const resolve = this.options.resolve ?? systemResolve;
    const issues: Refused[] = [];
    for (const [index, target] of targets.entries()) {
      const parsed = parseTarget(target.range);
      if (isRefusal(parsed) || parsed.kind !== 'host') continue;
      const addresses = await resolve(parsed.name).catch(() => [] as string[]);
      const loopback = addresses.find(isLoopbackAddress);
      if (loopback)
        issues.push({
          field: ['scanTargets', String(index), 'range'],
          refusal: {
            rule: 'Loopback',
            message: `${parsed.name} resolves to ${loopback}, a loopback address, which is scanned only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true.`,
          },
        });
    }
    return issues;
  }
}

interface Refused {
  field: readonly string[];
  refusal: TargetRefusal;
  /** The target or exclusion refused, named in the message when the rule's sentence does not. */
  text?: string;
}

/** The refusal's sentence, naming the target it is about. */
function sentence(i: Refused): string {
  const m = i.refusal.message;
  return i.text && !m.includes(i.text) ? `${i.text}: ${m}` : m;
}

function exclusionIssues(texts: string[], field: readonly string[]): Refused[] {
  const issues: Refused[] = [];
  texts.forEach((text, index) => {
    const parsed = parseTarget(text);
    if (isRefusal(parsed)) issues.push({ field: [...field, String(index)], refusal: parsed, text });
  });
  return issues;
}

/** One 422 for every refused target; each `errors[]` message starts with its rule. */
function refused(issues: Refused[]): AppError {
  const fields: FieldIssue[] = issues.map((i) => ({
    field: i.field,
    message: `${i.refusal.rule}: ${sentence(i)}`,
  }));
  const described = issues.map((i) => `${sentence(i)} (${i.refusal.rule})`);
  const detail =
    issues.length === 1 ? described[0]! : `${issues.length} targets are refused: ${described.join(' ')}`;
  return new AppError(Problems.ScanTargetRefused, detail, {}, {}, fields);
}

/** Counts what parses; a target that does not counts nothing (its verdict says why). */
function safeCount(targets: ScanTarget[], exclusions: string[]): number {
  try {
    return countAddresses(targets, exclusions);
  } catch {
    return 0;
  }
}

function toAllowedTarget(row: Row): AllowedTarget {
  const parsed = parseTarget(row.target);
  return {
    id: row.id,
    organizationId: row.organization_id,
    kind: row.kind,
    target: row.target,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at,
    addressCount: isRefusal(parsed) ? null : entrySize(parsed),
  };
}
