import type { Static } from 'typebox';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { VulnerabilityRow } from './repository.js';
import type { VulnerabilityListQuery } from './schemas.js';

// How vulnerabilities look on the wire, and how a list request becomes the service's input.

const num = (v: string | null) => (v === null ? null : Number(v));

export const toVulnerabilityDto = (v: VulnerabilityRow) => ({
  Id: v.id,
  Source: v.source,
  PluginGuidId: v.plugin_id,
  CVEReferences: v.cve_ids,
  Aliases: v.aliases,
  Title: v.title,
  Description: v.description,
  Solution: v.solution,
  Cwe: v.cwe_ids,
  Severity: v.severity,
  CVSSBaseScore: num(v.cvss3_score),
  CvssVector: v.cvss3_vector,
  EpssScore: num(v.epss_score),
  EpssPercentile: num(v.epss_percentile),
  Kev: v.kev,
  KevDateAdded: v.kev_date_added,
  KevDueDate: v.kev_due_date,
  Cvss2Vector: v.cvss2_vector,
  Cvss2BaseScore: num(v.cvss2_score),
  Cvss4Vector: v.cvss4_vector,
  Cvss4BaseScore: num(v.cvss4_score),
  References: v.reference_urls,
  PublishedAt: v.published_at ? v.published_at.toISOString() : null,
  IntelUpdatedAt: v.intel_at ? v.intel_at.toISOString() : null,
  CreatedAt: v.created_at.toISOString(),
  UpdatedAt: v.updated_at.toISOString(),
});

export const vulnerabilityFilterFromQuery = (q: Static<typeof VulnerabilityListQuery>) => ({
  cve: q.Cve?.toUpperCase(),
  kev: q.Kev,
  search: q.Search,
});

/** The id a page starts after, from the NextCursor of the page before. */
export function afterIdFromCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  const key = decodeCursor(cursor, ['Id']);
  if (!key)
    throw AppError.of(
      Problems.ValidationFailed,
      'Cursor is not valid; pass the NextCursor of a previous page.',
    );
  return key.Id;
}

export const toVulnerabilityPageDto = (page: { items: VulnerabilityRow[]; more: boolean }) => {
  const last = page.items.at(-1);
  return {
    Items: page.items.map(toVulnerabilityDto),
    NextCursor: page.more && last ? encodeCursor({ Id: last.id }) : null,
  };
};
