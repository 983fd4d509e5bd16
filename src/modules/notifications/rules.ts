import { SEVERITIES, type Severity } from '../../db/schema.js';
import type { RuleFilters } from './types.js';

/** What an event says about itself for rules (the events module's EventFacets). */
export interface Facets {
  severity?: Severity;
  kev?: boolean;
  riskScore?: number;
  tags?: string[];
  scanGroupIds?: string[];
  assetIds?: string[];
  /** The saved scan a scan event is about (from its data when the event does not carry it). */
  scanIds?: string[];
}

/** The facets of an event, with its scan's id for a scan event (`data.Scan.Id`). */
export function facetsOf(event: { type: string; data: unknown; facets?: Facets | null }): Facets {
  const facets = event.facets ?? {};
  if (!event.type.startsWith('scan.')) return facets;
  const scan = (event.data as { Scan?: { Id?: unknown; ScanGroupId?: unknown } } | null)?.Scan;
  return {
    ...facets,
    ...(!facets.scanIds && typeof scan?.Id === 'string' ? { scanIds: [scan.Id] } : {}),
    ...(!facets.scanGroupIds && typeof scan?.ScanGroupId === 'string'
      ? { scanGroupIds: [scan.ScanGroupId] }
      : {}),
  };
}

/** Critical ranks 0: a severity passes a minimum when its rank is at most the minimum's. */
const rank = (severity: Severity) => SEVERITIES.indexOf(severity);

/**
 * Whether an event's facets pass a rule's filters. Every filter the rule sets must hold; an event
 * that does not carry a facet a filter asks about (a scan event has no severity) does not pass it.
 */
export function passesFilters(filters: RuleFilters, facets: Facets): boolean {
  if (filters.minSeverity) {
    if (!facets.severity || !SEVERITIES.includes(facets.severity)) return false;
    if (rank(facets.severity) > rank(filters.minSeverity)) return false;
  }
  if (filters.kevOnly && facets.kev !== true) return false;
  if (filters.riskAbove !== null) {
    if (typeof facets.riskScore !== 'number' || !(facets.riskScore > filters.riskAbove)) return false;
  }
  if (filters.tag !== null) {
    const tag = filters.tag.toLowerCase();
    if (!facets.tags?.some((t) => t.toLowerCase() === tag)) return false;
  }
  if (filters.scanGroupId !== null && !facets.scanGroupIds?.includes(filters.scanGroupId)) return false;
  if (filters.assetId !== null && !facets.assetIds?.includes(filters.assetId)) return false;
  if (filters.scanId && !facets.scanIds?.includes(filters.scanId)) return false;
  return true;
}
