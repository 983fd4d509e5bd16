import type { Static } from 'typebox';
import type { CsvColumn } from '../../http/csv.js';
import { isoOrNull } from '../../http/dto.js';
import { rankingCvss } from '../../intel/cvss/cvss.js';
import type { FindingFilter } from './repository.js';
import type {
  ChangeStateSchema,
  CreateFindingSchema,
  FindingFilterSchema,
  FindingListQuery,
} from './schemas.js';
import type { FindingInput } from './service.js';
import type {
  Finding,
  FindingEvent,
  FindingExport,
  FindingLocationFields,
  FindingSummary,
  HistoryEvent,
} from './types.js';

// How findings look on the wire, and how requests become the service's input: the routes only
// declare and call.

/** A finding's `Location` on the wire (findings, and a ticket's linked findings). */
export const toLocationDto = (f: FindingLocationFields) => ({
  Kind: f.locationKind,
  Port: f.port,
  Protocol: f.protocol,
  Url: f.url,
  Parameter: f.parameter,
  File: f.filePath,
  Line: f.line,
  Package: f.packageName,
  Version: f.packageVersion,
});

const date = (text: string | undefined) => (text ? new Date(text) : undefined);

/** The vulnerability's score that ranks the finding, and its version (rankingCvss: highest version first). */
function rankingFields(f: FindingSummary) {
  const ranking = rankingCvss(f);
  return { CVSSBaseScore: ranking?.score ?? null, CvssVersion: ranking?.version ?? null };
}

export const toFindingDto = (f: FindingSummary) => ({
  Id: f.id,
  AssetId: f.assetId,
  AssetName: f.assetName,
  VulnerabilityId: f.vulnerabilityId,
  PluginGuidId: f.pluginId,
  Title: f.title,
  CVEReferences: f.cveIds,
  Kev: f.kev,
  EpssScore: f.epssScore === null ? null : Number(f.epssScore),
  EpssPercentile: f.epssPercentile === null ? null : Number(f.epssPercentile),
  KevDueDate: f.kevDueDate,
  ...rankingFields(f),
  Severity: f.effectiveSeverity,
  ScannerSeverity: f.severity,
  SeverityOverrideReason: f.severityOverrideReason,
  State: f.state,
  StateReason: f.stateReason,
  RiskAcceptedUntil: isoOrNull(f.riskAcceptedUntil),
  RiskScore: Number(f.riskScore),
  DueAt: isoOrNull(f.dueAt),
  Confidence: f.confidence,
  Location: toLocationDto(f),
  Source: f.source,
  FirstSeen: f.firstSeenAt.toISOString(),
  LastSeen: f.lastSeenAt.toISOString(),
  FixedAt: isoOrNull(f.fixedAt),
  CreatedAt: f.createdAt.toISOString(),
  UpdatedAt: f.updatedAt.toISOString(),
});

/** An entry of a history, a finding's or a ticket's: who did what, from which state to which. */
export const toEventDto = (e: HistoryEvent) => ({
  Id: e.id,
  At: e.occurredAt.toISOString(),
  ActorType: e.actorType,
  ActorId: e.actorId,
  Kind: e.kind,
  FromState: e.fromState,
  ToState: e.toState,
});

export const toFindingEventDto = (e: FindingEvent) => ({ ...toEventDto(e), Reason: e.reason });

// A Rampart scan's findings live in its scope: `system-scan:<id>` or `web-scan:<id>`.
const SCAN_SCOPE = /^(system|web)-scan:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The Rampart scan that found the finding, read from its scope; null for imported findings. */
export function foundBy(f: Pick<Finding, 'scopeName' | 'lastImportId'>) {
  const match = f.scopeName ? SCAN_SCOPE.exec(f.scopeName) : null;
  if (!match) return null;
  return {
    Kind: match[1] === 'web' ? ('Web' as const) : ('System' as const),
    ScanId: match[2] ?? '',
    ImportId: f.lastImportId,
  };
}

/** One finding with its evidence and history. */
export const toFindingDetailDto = (f: Finding, events: FindingEvent[]) => ({
  ...toFindingDto(f),
  Evidence: f.evidence,
  FoundBy: foundBy(f),
  Events: events.map(toFindingEventDto),
});

export const FINDING_CSV: readonly CsvColumn<FindingExport>[] = [
  { header: 'Id', value: (f) => f.id },
  { header: 'Asset', value: (f) => f.assetName },
  { header: 'AssetId', value: (f) => f.assetId },
  { header: 'Title', value: (f) => f.title },
  { header: 'CVE', value: (f) => f.cves },
  { header: 'Severity', value: (f) => f.effectiveSeverity },
  { header: 'State', value: (f) => f.state },
  { header: 'RiskScore', value: (f) => Number(f.riskScore) },
  { header: 'DueAt', value: (f) => f.dueAt },
  { header: 'Kev', value: (f) => f.kev },
  { header: 'Port', value: (f) => f.port },
  { header: 'Protocol', value: (f) => f.protocol },
  { header: 'Url', value: (f) => f.url },
  {
    header: 'Package',
    value: (f) => (f.packageName ? `${f.packageName}@${f.packageVersion ?? ''}` : null),
  },
  { header: 'Source', value: (f) => f.source },
  { header: 'FirstSeen', value: (f) => f.firstSeenAt },
  { header: 'LastSeen', value: (f) => f.lastSeenAt },
];

/** The confidence a filter keeps (undefined: both), `fallback` when none is given. */
function confidenceOf(
  given: 'Confirmed' | 'Unconfirmed' | 'Any' | undefined,
  fallback: 'Confirmed' | 'Any',
): FindingFilter['confidence'] {
  const value = given ?? fallback;
  return value === 'Any' ? undefined : value;
}

/** The filter of a findings list (GET /findings). */
export const filterFromQuery = (q: Static<typeof FindingListQuery>): FindingFilter => ({
  states: q.State,
  // Unconfirmed findings are hidden unless asked for.
  confidence: confidenceOf(q.Confidence, 'Confirmed'),
  severities: q.Severity,
  assetId: q.AssetId,
  tag: q.Tag,
  vulnerabilityId: q.VulnerabilityId,
  cve: q.Cve,
  kev: q.Kev,
  epssMin: q.EpssMin,
  riskMin: q.RiskMin,
  dueBefore: date(q.DueBefore),
  firstSeenAfter: date(q.FirstSeenAfter),
  firstSeenBefore: date(q.FirstSeenBefore),
  fixedAfter: date(q.FixedAfter),
  fixedBefore: date(q.FixedBefore),
  lastSeenBefore: date(q.LastSeenBefore),
  search: q.Search,
  importId: q.ImportId,
  importChange: q.ImportChange,
  // A scan's id is unique across kinds: its findings are in one of the two scan scopes.
  scopeNames: q.ScanId ? [`system-scan:${q.ScanId}`, `web-scan:${q.ScanId}`] : undefined,
  scanGroupId: q.ScanGroupId,
});

/** The filter of a bulk action (`Filter` in its body). */
export const filterFromBody = (b: Static<typeof FindingFilterSchema>): FindingFilter => ({
  states: b.State,
  // As the list shows them; findings named by id are acted on whatever their confidence.
  confidence: confidenceOf(b.Confidence, b.Ids ? 'Any' : 'Confirmed'),
  severities: b.Severity,
  assetId: b.AssetId,
  tag: b.Tag,
  vulnerabilityId: b.VulnerabilityId,
  cve: b.Cve,
  kev: b.Kev,
  epssMin: b.EpssMin,
  riskMin: b.RiskMin,
  dueBefore: date(b.DueBefore),
  firstSeenAfter: date(b.FirstSeenAfter),
  firstSeenBefore: date(b.FirstSeenBefore),
  fixedAfter: date(b.FixedAfter),
  fixedBefore: date(b.FixedBefore),
  lastSeenBefore: date(b.LastSeenBefore),
  search: b.Search,
  scanGroupId: b.ScanGroupId,
  ids: b.Ids,
});

/** A finding recorded by hand (POST /findings). */
export const findingInputFromBody = (b: Static<typeof CreateFindingSchema>): FindingInput => {
  const l = b.Location ?? { Kind: 'None' as const };
  return {
    assetId: b.AssetId,
    vulnerabilityId: b.VulnerabilityId,
    vulnerability: b.Vulnerability && {
      source: 'Manual',
      title: b.Vulnerability.Title,
      cveIds: b.Vulnerability.Cve,
      description: b.Vulnerability.Description,
      solution: b.Vulnerability.Solution,
      cweIds: b.Vulnerability.Cwe,
      severity: b.Vulnerability.Severity,
      cvss3Score: b.Vulnerability.CvssScore,
      cvss3Vector: b.Vulnerability.CvssVector,
      references: b.Vulnerability.References,
    },
    location: {
      kind: l.Kind,
      port: l.Port,
      protocol: l.Protocol,
      url: l.Url,
      parameter: l.Parameter,
      filePath: l.File,
      line: l.Line,
      packageName: l.Package,
      packageVersion: l.Version,
    },
    severity: b.Severity,
    evidence: b.Evidence,
    source: 'Manual',
  };
};

/** A decision about a finding's state (one finding or in bulk). */
export const stateChangeFromBody = (b: Static<typeof ChangeStateSchema>) => ({
  state: b.State,
  justification: b.Justification,
  until: date(b.Until),
});

export const toBulkResultDto = (r: { matched: number; changed: number; skipped: number }) => ({
  Matched: r.matched,
  Changed: r.changed,
  Skipped: r.skipped,
});
