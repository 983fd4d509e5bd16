// Shapes of the Rampart API (channel `latest`). Property names are PascalCase on the wire.

export type Role = 'ReadOnly' | 'Analyst' | 'Manager' | 'Admin';

/** In increasing order of rights: each role includes those before it. */
export const ROLES: readonly Role[] = ['ReadOnly', 'Analyst', 'Manager', 'Admin'];

export function hasRole(actual: Role, needed: Role): boolean {
  return ROLES.indexOf(actual) >= ROLES.indexOf(needed);
}

export interface UserSummary {
  Id: string;
  Name: string;
  Email: string;
  Role: Role;
}

export interface Organization {
  Id: string;
  Name: string;
}

export interface Session {
  User: UserSummary;
  Organization: Organization;
  CsrfToken: string;
}

export interface ServiceStatus {
  Service: string;
  Version: string;
  Time: string;
  Database: 'embedded' | 'postgresql';
  Channel: string;
  /** The public address of the service; older servers do not send it. */
  BaseUrl?: string;
}

export interface AccountDetails {
  User: UserSummary;
  Organization: Organization;
  AuthenticatedWith: string;
  AccessKey: string | null;
}

export type ApiKeyStatus = 'Active' | 'Expired' | 'Revoked';

export interface ApiKey {
  Id: string;
  Name: string;
  AccessKey: string;
  CreatedAt: string;
  LastUsedAt: string | null;
  ExpiresAt: string | null;
  RevokedAt: string | null;
  Status: ApiKeyStatus;
}

export interface CreatedApiKey extends ApiKey {
  SecretKey: string;
}

export interface User {
  Id: string;
  Name: string;
  Email: string;
  Role: Role;
  Active: boolean;
  CreatedAt: string;
}

export interface Page<T> {
  Items: T[];
  NextCursor: string | null;
  /** Left out by the findings list when it was not asked for and the match is large. */
  TotalCount?: number;
}

export interface ProblemFieldError {
  path: string;
  message: string;
  suggestion?: string;
}

/** RFC 9457 problem document. */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: ProblemFieldError[];
  retryAfter?: number;
}

export type Severity = 'Critical' | 'High' | 'Medium' | 'Low' | 'Info';
export type FindingState = 'Open' | 'Reopened' | 'Fixed' | 'RiskAccepted' | 'FalsePositive';
export type FindingSort = '-Risk' | '-Severity' | '-FirstSeen' | '-LastSeen' | 'DueAt';

export interface FindingLocation {
  Kind: 'None' | 'Port' | 'Url' | 'File' | 'Package' | string;
  Port: number | null;
  Protocol: string | null;
  Url: string | null;
  Parameter: string | null;
  File: string | null;
  Line: number | null;
  Package: string | null;
  Version: string | null;
}

export interface Finding {
  Id: string;
  AssetId: string;
  AssetName: string;
  VulnerabilityId: string;
  PluginGuidId: string | null;
  Title: string;
  CVEReferences: string[];
  Kev: boolean;
  /** The CISA KEV due date (a day, YYYY-MM-DD), when KEV lists a CVE of the finding. */
  KevDueDate: string | null;
  /** Probability of exploitation in the next 30 days (0..1). */
  EpssScore: number | null;
  /** Share of scored CVEs with a lower or equal EPSS score (0..1). */
  EpssPercentile: number | null;
  /** The CVSS base score the risk score uses (v3, else v4, else v2). */
  CVSSBaseScore: number | null;
  Severity: Severity;
  ScannerSeverity: Severity;
  SeverityOverrideReason: string | null;
  State: FindingState;
  StateReason: string | null;
  RiskAcceptedUntil: string | null;
  RiskScore: number;
  DueAt: string | null;
  Location: FindingLocation;
  Source: string;
  FirstSeen: string;
  LastSeen: string;
  FixedAt: string | null;
  CreatedAt: string;
  UpdatedAt: string;
}

export interface HistoryEvent {
  Id: string;
  At: string;
  ActorType: string;
  ActorId: string | null;
  Kind: string;
  FromState: string | null;
  ToState: string | null;
  Reason?: string | null;
}

export interface FindingDetail extends Finding {
  Evidence: string | null;
  Events: HistoryEvent[];
}

/** The list filters; as query parameters for a list, as `Filter` for a bulk action. */
export interface FindingFilter {
  Ids?: string[];
  State?: FindingState[];
  Severity?: Severity[];
  AssetId?: string;
  VulnerabilityId?: string;
  Tag?: string;
  Cve?: string;
  Kev?: boolean;
  /** Risk score at least this (0..100). */
  RiskMin?: number;
  Search?: string;
  /** The findings an import created (New), fixed or reopened; list filters only. */
  ImportId?: string;
  ImportChange?: 'New' | 'Fixed' | 'Reopened';
}

export interface BulkResult {
  Matched: number;
  Changed: number;
  Skipped: number;
}

export interface Vulnerability {
  Id: string;
  Source: string;
  PluginGuidId: string | null;
  CVEReferences: string[];
  Aliases: string[];
  Title: string;
  Description: string | null;
  Solution: string | null;
  Cwe: string[];
  Severity: Severity;
  /** CVSS v3 base score. */
  CVSSBaseScore: number | null;
  /** CVSS v3 vector. */
  CvssVector: string | null;
  Cvss2Vector: string | null;
  Cvss2BaseScore: number | null;
  Cvss4Vector: string | null;
  Cvss4BaseScore: number | null;
  EpssScore: number | null;
  EpssPercentile: number | null;
  Kev: boolean;
  /** Days (YYYY-MM-DD). */
  KevDateAdded: string | null;
  KevDueDate: string | null;
  References: string[];
  PublishedAt: string | null;
  /** When public intelligence (NVD, KEV, EPSS) last changed this entry. */
  IntelUpdatedAt: string | null;
  CreatedAt: string;
  UpdatedAt: string;
}

export type AssetKind = 'Host' | 'WebApplication' | 'ContainerImage' | 'CodeRepository';

export interface Asset {
  Id: string;
  Kind: AssetKind;
  Name: string;
  FriendlyName: string | null;
  Hostname: string | null;
  Fqdn: string | null;
  DomainName: string | null;
  IpAddress: string | null;
  IpAddresses: string[];
  MacAddress: string | null;
  MacAddresses: string[];
  OperatingSystem: string | null;
  Url: string | null;
  Criticality: number;
  Confidentiality: number | null;
  Integrity: number | null;
  Availability: number | null;
  OwnerId: string | null;
  InternetFacing: boolean;
  Tags: string[];
  Sources: string[];
  FirstSeen: string;
  LastSeen: string;
  CreatedAt: string;
  UpdatedAt: string;
}

export interface AssetDetail extends Asset {
  Identifiers: { Kind: string; Value: string }[];
}

export type TicketState = 'Open' | 'InProgress' | 'Resolved' | 'Closed' | 'Reopened';
export type Priority = 'Critical' | 'High' | 'Medium' | 'Low';

export interface Ticket {
  Id: string;
  Number: number;
  Title: string;
  Description: string | null;
  Priority: Priority;
  AssigneeId: string | null;
  DueAt: string | null;
  State: TicketState;
  FindingCount: number;
  CreatedById: string | null;
  CreatedAt: string;
  UpdatedAt: string;
  ResolvedAt: string | null;
  ClosedAt: string | null;
}

export interface TicketDetail extends Ticket {
  Findings: {
    Id: string;
    Title: string;
    State: FindingState;
    Severity: Severity;
    AssetId: string;
    AssetName: string;
    Location: FindingLocation;
  }[];
  Comments: { Id: string; AuthorId: string | null; Body: string; CreatedAt: string }[];
  Events: HistoryEvent[];
}

export type SlaDays = Record<Severity, number | null>;

export interface Settings {
  SlaDays: SlaDays;
}
