import type { Static } from 'typebox';
import type { FindingsTable } from '../../db/schema.js';
import type { CsvColumn } from '../../http/csv.js';
import type { FindingExportRow, FindingFilter, FindingListRow, FindingRow } from './repository.js';
import type {
  ChangeStateSchema,
  CreateFindingSchema,
  FindingFilterSchema,
  FindingListQuery,
} from './schemas.js';
import type { FindingInput, FindingService } from './service.js';

// How findings look on the wire, and how requests become the service's input: the routes only
// declare and call.

/** The columns that say where a finding is, as every query that lists findings selects them. */
export type LocationColumns = Pick<
  FindingsTable,
  | 'location_kind'
  | 'port'
  | 'protocol'
  | 'url'
  | 'parameter'
  | 'file_path'
  | 'line'
  | 'package_name'
  | 'package_version'
>;

/** A finding's `Location` on the wire (findings, and a ticket's linked findings). */
export const toLocationDto = (f: LocationColumns) => ({
  Kind: f.location_kind,
  Port: f.port,
  Protocol: f.protocol,
  Url: f.url,
  Parameter: f.parameter,
  File: f.file_path,
  Line: f.line,
  Package: f.package_name,
  Version: f.package_version,
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const numOrNull = (v: string | null) => (v === null ? null : Number(v));
const date = (text: string | undefined) => (text ? new Date(text) : undefined);

export const toFindingDto = (f: FindingRow | FindingListRow) => ({
  Id: f.id,
  AssetId: f.asset_id,
  AssetName: f.asset_name,
  VulnerabilityId: f.vulnerability_id,
  PluginGuidId: f.plugin_id,
  Title: f.title,
  CVEReferences: f.cve_ids,
  Kev: f.kev,
  EpssScore: f.epss_score === null ? null : Number(f.epss_score),
  EpssPercentile: f.epss_percentile === null ? null : Number(f.epss_percentile),
  KevDueDate: f.kev_due_date,
  CVSSBaseScore: numOrNull(f.cvss3_score ?? f.cvss4_score ?? f.cvss2_score),
  Severity: f.effective_severity,
  ScannerSeverity: f.severity,
  SeverityOverrideReason: f.severity_override_reason,
  State: f.state,
  StateReason: f.state_reason,
  RiskAcceptedUntil: iso(f.risk_accepted_until),
  RiskScore: Number(f.risk_score),
  DueAt: iso(f.due_at),
  Location: toLocationDto(f),
  Source: f.source,
  FirstSeen: f.first_seen_at.toISOString(),
  LastSeen: f.last_seen_at.toISOString(),
  FixedAt: iso(f.fixed_at),
  CreatedAt: f.created_at.toISOString(),
  UpdatedAt: f.updated_at.toISOString(),
});

type FindingEvent = Awaited<ReturnType<FindingService['events']>>[number];

/** An entry of a history, a finding's or a ticket's: who did what, from which state to which. */
export const toEventDto = <E extends Omit<FindingEvent, 'reason' | 'details' | 'from_state' | 'to_state'>, S>(
  e: E & { from_state: S; to_state: S },
) => ({
  Id: e.id,
  At: e.occurred_at.toISOString(),
  ActorType: e.actor_type,
  ActorId: e.actor_id,
  Kind: e.kind,
  FromState: e.from_state,
  ToState: e.to_state,
});

export const toFindingEventDto = (e: FindingEvent) => ({ ...toEventDto(e), Reason: e.reason });

/** One finding with its evidence and history. */
export const toFindingDetailDto = (f: FindingRow, events: FindingEvent[]) => ({
  ...toFindingDto(f),
  Evidence: f.evidence,
  Events: events.map(toFindingEventDto),
});

export const FINDING_CSV: readonly CsvColumn<FindingExportRow>[] = [
  { header: 'Id', value: (f) => f.id },
  { header: 'Asset', value: (f) => f.asset_name },
  { header: 'AssetId', value: (f) => f.asset_id },
  { header: 'Title', value: (f) => f.title },
  { header: 'CVE', value: (f) => f.cves },
  { header: 'Severity', value: (f) => f.effective_severity },
  { header: 'State', value: (f) => f.state },
  { header: 'RiskScore', value: (f) => Number(f.risk_score) },
  { header: 'DueAt', value: (f) => f.due_at },
  { header: 'Kev', value: (f) => f.kev },
  { header: 'Port', value: (f) => f.port },
  { header: 'Protocol', value: (f) => f.protocol },
  { header: 'Url', value: (f) => f.url },
  {
    header: 'Package',
    value: (f) => (f.package_name ? `${f.package_name}@${f.package_version ?? ''}` : null),
  },
  { header: 'Source', value: (f) => f.source },
  { header: 'FirstSeen', value: (f) => f.first_seen_at },
  { header: 'LastSeen', value: (f) => f.last_seen_at },
];

/** The filter of a findings list (GET /findings). */
export const filterFromQuery = (q: Static<typeof FindingListQuery>): FindingFilter => ({
  states: q.State,
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
  lastSeenBefore: date(q.LastSeenBefore),
  search: q.Search,
  importId: q.ImportId,
  importChange: q.ImportChange,
});

/** The filter of a bulk action (`Filter` in its body). */
export const filterFromBody = (b: Static<typeof FindingFilterSchema>): FindingFilter => ({
  states: b.State,
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
  lastSeenBefore: date(b.LastSeenBefore),
  search: b.Search,
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
