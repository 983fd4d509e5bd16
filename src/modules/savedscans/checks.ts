import type { ScheduleOption } from '../../jobs/schedule-option.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ScanKind, ScanTarget } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { ScanNodes, TargetRules } from './dependencies.js';

// The checks and tidying every kind's input goes through.

/** Targets as they are kept: trimmed, unnamed ones null, empty exclusions dropped. */
export function trimTargets(targets: ScanTarget[]): ScanTarget[] {
  return targets.map((t) => ({
    range: t.range.trim(),
    name: t.name?.trim() || null,
    exclude: trimList(t.exclude ?? []),
  }));
}

/** A list of texts trimmed, empty ones dropped. */
export function trimList(texts: string[]): string[] {
  return texts.map((e) => e.trim()).filter(Boolean);
}

/** A schedule as it is kept: null for none (`None` included). */
export function keptSchedule(schedule: ScheduleOption | null): ScheduleOption | null {
  return schedule && schedule.SchedulingMode !== 'None' ? schedule : null;
}

/** A node named for the scan must be the organisation's and serve the kind (404 otherwise). */
export async function assertNodeServes(
  nodes: ScanNodes,
  ctx: ServiceContext,
  nodeId: string | null,
  kind: ScanKind,
): Promise<void> {
  if (nodeId && !(await nodes.servesKind(ctx, nodeId, kind)))
    throw AppError.of(
      Problems.NotFound,
      `No scan node ${nodeId} serving ${kind.toLowerCase()} scans in this organisation.`,
    );
}

/** The template named for the scan: the organisation's (404) and of the kind (400 naming `templateId`). */
export async function checkTemplate<T extends { kind: string; name: string }>(
  templates: { find(ctx: ServiceContext, id: string): Promise<T | undefined> },
  ctx: ServiceContext,
  id: string,
  kind: ScanKind,
): Promise<T> {
  const template = await templates.find(ctx, id);
  if (!template) throw AppError.of(Problems.NotFound, `No scan template ${id} in this organisation.`);
  if (template.kind !== kind)
    throw invalid(
      'templateId',
      `'${template.name}' is a ${template.kind} template, not a ${kind.toLowerCase()} one.`,
    );
  return template;
}

/**
 * The claim-time check of a spec that names targets and exclusions: the first refusal under the
 * organisation's policy of today, or null. A spec of another shape is not this kind's: the node's
 * executor refuses what it cannot read.
 */
export async function targetsRefusal(
  targets: TargetRules,
  organizationId: string,
  spec: unknown,
): Promise<string | null> {
  const s = spec as { targets?: unknown; exclusions?: unknown } | null;
  if (!s || !Array.isArray(s.targets) || !Array.isArray(s.exclusions)) return null;
  const policy = await targets.policy(organizationId);
  return targets.refusal(s.targets as ScanTarget[], s.exclusions as string[], policy);
}
