import type { FastifyRequest } from 'fastify';
import type { LocationKind } from '../../db/schema.js';
import { type CvssByVersion, rankingCvss } from '../../intel/cvss/cvss.js';
import type { Vulnerability } from '../vulnerabilities/service.js';

/** A vulnerability as its service answers it. */
export type { Vulnerability };

/** The original service's risk levels: four, with Info spelled out. */
export const RISK_LEVEL: Record<string, string> = {
  Critical: 'High',
  High: 'High',
  Medium: 'Medium',
  Low: 'Low',
  Info: 'Information',
};

/**
 * The category of a check, from where its findings are. The original names the kind of check
 * (`Generic`, …); its clients group by it, so it is never a tool's name.
 */
const CATEGORY: Record<LocationKind, string> = {
  Port: 'Network',
  Url: 'Web',
  Package: 'Software',
  File: 'Code',
  None: 'Generic',
};

export function categoryOf(location: LocationKind | undefined): string {
  return location ? CATEGORY[location] : 'Generic';
}

/**
 * A number, or `""` when no score is known: clients compare it with `""` only. The score that
 * ranks the vulnerability everywhere in Rampart (rankingCvss: v4.0, else v3.x, else v2.0, so the
 * v2 score when that is all there is: older checks have only v2).
 */
export function cvssBaseScoreOf(v: CvssByVersion): number | '' {
  return rankingCvss(v)?.score ?? '';
}

/** The original's clients send the path of their own page as a category: it means every one. */
const EVERY_CATEGORY = new Set(['', 'all', 'assets/installedsoftware']);

export function isEveryCategory(categoryName: string | null | undefined): boolean {
  return EVERY_CATEGORY.has((categoryName ?? '').trim().toLowerCase());
}

/**
 * Trims the spaces some clients paste around an id (`assethosts/asset/%20{Id}`) before the
 * path is validated, so that the id still has to be well formed once trimmed.
 */
export async function trimPathParams(request: FastifyRequest): Promise<void> {
  const params = request.params as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string') params[name] = value.trim();
  }
}
