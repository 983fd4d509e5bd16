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
  return true;
}
