import type { Static } from 'typebox';
import { rankingCvss } from '../../intel/cvss/cvss.js';
import { encodeCursor } from '../../lib/cursor.js';
import { cursorKey } from '../paging.js';
import type { VulnerabilityListQuery } from './schemas.js';
import type { Vulnerability } from './types.js';

// How vulnerabilities look on the wire, and how a list request becomes the service's input.

const num = (v: string | null) => (v === null ? null : Number(v));

/** The score the vulnerability ranks by, its version and vector (rankingCvss: highest version first). */
function rankingFields(v: Vulnerability) {
  const ranking = rankingCvss(v);
  return {
    CVSSBaseScore: ranking?.score ?? null,
    CvssVersion: ranking?.version ?? null,
    CvssVector: ranking?.vector ?? null,
  };
}

export const toVulnerabilityDto = (v: Vulnerability) => ({
  Id: v.id,
  Source: v.source,
  PluginGuidId: v.pluginId,
  CVEReferences: v.cveIds,
  Aliases: v.aliases,
  Title: v.title,
  Description: v.description,
  Solution: v.solution,
  Cwe: v.cweIds,
  Severity: v.severity,
  ...rankingFields(v),
  EpssScore: num(v.epssScore),
  EpssPercentile: num(v.epssPercentile),
  Kev: v.kev,
  KevDateAdded: v.kevDateAdded,
  KevDueDate: v.kevDueDate,
  Cvss3Vector: v.cvss3Vector,
  Cvss3BaseScore: num(v.cvss3Score),
  Cvss2Vector: v.cvss2Vector,
  Cvss2BaseScore: num(v.cvss2Score),
  Cvss4Vector: v.cvss4Vector,
  Cvss4BaseScore: num(v.cvss4Score),
  References: v.references,
  PublishedAt: v.publishedAt ? v.publishedAt.toISOString() : null,
  IntelUpdatedAt: v.intelAt ? v.intelAt.toISOString() : null,
  CreatedAt: v.createdAt.toISOString(),
  UpdatedAt: v.updatedAt.toISOString(),
});

export const vulnerabilityFilterFromQuery = (q: Static<typeof VulnerabilityListQuery>) => ({
  cve: q.Cve?.toUpperCase(),
  kev: q.Kev,
  search: q.Search,
});

/** The id a page starts after, from the NextCursor of the page before. */
export function afterIdFromCursor(cursor: string | undefined): string | undefined {
  return cursor ? cursorKey(cursor, ['Id']).Id : undefined;
}

export const toVulnerabilityPageDto = (page: { items: Vulnerability[]; more: boolean }) => {
  const last = page.items.at(-1);
  return {
    Items: page.items.map(toVulnerabilityDto),
    NextCursor: page.more && last ? encodeCursor({ Id: last.id }) : null,
  };
};
