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
  EpssScore: number | null;
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
  Tag?: string;
  Cve?: string;
  Kev?: boolean;
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
  Aliases?: string[];
  Title: string;
  Description: string | null;
  Solution: string | null;
  Cwe?: string[] | null;
  Severity: Severity;
  CVSSBaseScore: number | null;
  CvssVector: string | null;
  EpssScore: number | null;
  EpssPercentile: number | null;
  Kev: boolean;
  References?: string[] | null;
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
  Findings: { Id: string; Title: string; State: FindingState; Severity: Severity; AssetId: string }[];
  Comments: { Id: string; AuthorId: string | null; Body: string; CreatedAt: string }[];
  Events: HistoryEvent[];
}

export type SlaDays = Record<Severity, number | null>;

export interface Settings {
  SlaDays: SlaDays;
}
