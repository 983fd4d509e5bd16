import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable } from 'kysely';

/** Timestamps come back from `pg` as Date and may be written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/**
 * Written once, by the application: every insert passes the clock's time (the columns have no
 * default since migration 0011, so that no value comes from the database's own clock).
 */
type CreatedAt = ColumnType<Date, Date | string, never>;

export const ROLES = ['ReadOnly', 'Analyst', 'Manager', 'Admin'] as const;
export type Role = (typeof ROLES)[number];

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: CreatedAt;
  /** A deactivated organisation's sessions and API keys stop working; its data is kept. */
  deactivated_at: Timestamp | null;
}

/** Who signs in, once for the installation; their memberships are `users` (docs/organisations.md). */
export interface PeopleTable {
  id: string;
  email: string;
  password_hash: string | null;
  /** Creates, renames and deactivates organisations (distinct from an organisation's Admins). */
  installation_admin: Generated<boolean>;
  /** Where the next password sign-in starts. */
  last_organization_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** A person's membership of one organisation, with its role. */
export interface UsersTable {
  organization_id: string;
  id: string;
  person_id: string;
  /** The person's email, copied (emails never change). */
  email: string;
  name: string;
  role: Role;
  active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  organization_id: string;
  id: string;
  user_id: string;
  name: string;
  access_key: string;
  secret_salt: Buffer;
  secret_hash: Buffer;
  created_at: CreatedAt;
  last_used_at: Timestamp | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface SessionsTable {
  organization_id: string;
  id: string;
  user_id: string;
  token_hash: Buffer;
  csrf_token_hash: Buffer;
  created_at: CreatedAt;
  last_seen_at: Timestamp;
  idle_expires_at: Timestamp;
  absolute_expires_at: Timestamp;
  revoked_at: Timestamp | null;
  ip_address: string | null;
  user_agent: string | null;
  /** 'sso': started through the organisation's single sign-on, so bound to it (no switching). */
  signed_in_with: Generated<'password' | 'sso'>;
}

export interface AuditEventsTable {
  organization_id: string;
  id: string;
  occurred_at: CreatedAt;
  actor_type: 'user' | 'apikey' | 'system' | 'cli';
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: ColumnType<Record<string, unknown>, string, string>;
  ip_address: string | null;
  request_id: string | null;
}

export const ASSET_KINDS = ['Host', 'WebApplication', 'ContainerImage', 'CodeRepository'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];
export const IDENTIFIER_KINDS = ['fqdn', 'ip', 'hostname', 'mac', 'url', 'image', 'repository'] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];
export const SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface OrganizationSettingsTable {
  organization_id: string;
  sla_critical_days: number | null;
  sla_high_days: number | null;
  sla_medium_days: number | null;
  sla_low_days: number | null;
  sla_info_days: number | null;
  sla_kev_days: number | null;
  next_ticket_number: Generated<number>;
  /** The organisation's IANA time zone: its days for history and trends (default 'UTC'). */
  time_zone: Generated<string>;
  updated_at: Timestamp;
  /** Days audit entries are kept; null: for ever (365 unless set). */
  audit_retention_days: Generated<number | null>;
  /** Password users must have a second factor to sign in (docs/mfa.md). */
  require_mfa: Generated<boolean>;
}

export const MFA_FACTOR_STATES = ['Pending', 'Active'] as const;
export type MfaFactorState = (typeof MFA_FACTOR_STATES)[number];

/** A user's TOTP factor: Pending until a code confirms it, then Active (docs/mfa.md). */
export interface MfaFactorsTable {
  organization_id: string;
  id: string;
  user_id: string;
  kind: Generated<'Totp'>;
  state: MfaFactorState;
  /** Base32; read to check codes, never logged. */
  secret: string;
  created_at: CreatedAt;
  enabled_at: Timestamp | null;
  /** The 30-second step of the last code accepted: codes of that step or earlier are refused. */
  last_used_step: number | null;
  last_used_at: Timestamp | null;
}

/** One-time recovery codes, by their SHA-256 only. */
export interface MfaRecoveryCodesTable {
  organization_id: string;
  user_id: string;
  code_hash: Buffer;
  created_at: CreatedAt;
  used_at: Timestamp | null;
}

export const MFA_CHALLENGE_PURPOSES = ['Verify', 'Enrol'] as const;
export type MfaChallengePurpose = (typeof MFA_CHALLENGE_PURPOSES)[number];

/** The single-use token between a sign-in's password step and its second step. */
export interface MfaChallengesTable {
  organization_id: string;
  id: string;
  user_id: string;
  token_hash: Buffer;
  purpose: MfaChallengePurpose;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  failed_attempts: Generated<number>;
}

export interface AssetsTable {
  organization_id: string;
  id: string;
  kind: AssetKind;
  name: string;
  friendly_name: string | null;
  hostname: string | null;
  fqdn: string | null;
  domain_name: string | null;
  ip_addresses: Generated<string[]>;
  mac_addresses: Generated<string[]>;
  operating_system: string | null;
  url: string | null;
  details: Generated<Record<string, unknown>>;
  criticality: Generated<number>;
  confidentiality: number | null;
  integrity: number | null;
  availability: number | null;
  owner_user_id: string | null;
  internet_facing: Generated<boolean>;
  tags: Generated<string[]>;
  sources: Generated<string[]>;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AssetIdentifiersTable {
  organization_id: string;
  kind: IdentifierKind;
  value: string;
  asset_id: string;
}

export const FINDING_STATES = ['Open', 'Fixed', 'Reopened', 'RiskAccepted', 'FalsePositive'] as const;
export type FindingState = (typeof FINDING_STATES)[number];
export const LOCATION_KINDS = ['None', 'Port', 'Url', 'File', 'Package'] as const;
export type LocationKind = (typeof LOCATION_KINDS)[number];
type Numeric = ColumnType<string, number | string, number | string>;

export interface VulnerabilitiesTable {
  organization_id: string;
  id: string;
  key: string;
  source: string;
  plugin_id: string | null;
  cve_ids: Generated<string[]>;
  aliases: Generated<string[]>;
  title: string;
  description: string | null;
  solution: string | null;
  cwe_ids: Generated<string[]>;
  severity: Severity;
  cvss3_vector: string | null;
  cvss3_score: Numeric | null;
  cvss4_vector: string | null;
  cvss4_score: Numeric | null;
  epss_score: Numeric | null;
  epss_percentile: Numeric | null;
  kev: Generated<boolean>;
  kev_due_date: string | null;
  kev_date_added: string | null;
  cvss2_vector: string | null;
  cvss2_score: Numeric | null;
  intel_at: Timestamp | null;
  reference_urls: Generated<string[]>;
  published_at: Timestamp | null;
  modified_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** Whether a finding is confirmed, or an upstream match the distribution's data could not decide. */
export type FindingConfidence = 'Confirmed' | 'Unconfirmed';

export interface FindingsTable {
  organization_id: string;
  id: string;
  asset_id: string;
  vulnerability_id: string;
  service_id: string | null;
  dedup_key: string;
  location_kind: LocationKind;
  port: number | null;
  protocol: string | null;
  url: string | null;
  parameter: string | null;
  file_path: string | null;
  line: number | null;
  package_name: string | null;
  package_version: string | null;
  title: string;
  severity: Severity;
  severity_override: Severity | null;
  severity_override_reason: string | null;
  effective_severity: ColumnType<Severity, never, never>;
  severity_rank: ColumnType<number, never, never>;
  state: FindingState;
  state_reason: string | null;
  risk_accepted_until: Timestamp | null;
  confidence: Generated<FindingConfidence>;
  risk_score: Numeric;
  due_at: Timestamp | null;
  evidence: string | null;
  source: string;
  scope_name: string | null;
  last_import_id: string | null;
  /** The group of findings last reported together (finding_sightings); null before migration 0021. */
  sighting_id: string | null;
  tool_finding_id: string | null;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  fixed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  search_vector: ColumnType<string, never, never>;
}

/** Findings one import reported, moved as a whole to a later import that reports them all. */
export interface FindingSightingsTable {
  organization_id: string;
  id: string;
  import_id: string;
  seen_at: Timestamp;
  findings: number;
}

export interface FindingEventsTable {
  organization_id: string;
  id: string;
  finding_id: string;
  occurred_at: Timestamp;
  actor_type: string;
  actor_id: string | null;
  kind: string;
  from_state: string | null;
  to_state: string | null;
  reason: string | null;
  details: ColumnType<Record<string, unknown>, string, string>;
}

export const TICKET_STATES = ['Open', 'InProgress', 'Resolved', 'Closed', 'Reopened'] as const;
export type TicketState = (typeof TICKET_STATES)[number];
export const TICKET_PRIORITIES = ['Critical', 'High', 'Medium', 'Low'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export interface TicketsTable {
  organization_id: string;
  id: string;
  number: number;
  title: string;
  description: string | null;
  priority: TicketPriority;
  assignee_user_id: string | null;
  due_at: Timestamp | null;
  state: TicketState;
  created_by_user_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  resolved_at: Timestamp | null;
  closed_at: Timestamp | null;
}

export interface TicketFindingsTable {
  organization_id: string;
  ticket_id: string;
  finding_id: string;
  linked_at: CreatedAt;
}

export interface TicketCommentsTable {
  organization_id: string;
  id: string;
  ticket_id: string;
  author_user_id: string | null;
  body: string;
  created_at: CreatedAt;
}

export interface TicketEventsTable {
  organization_id: string;
  id: string;
  ticket_id: string;
  occurred_at: Timestamp;
  actor_type: string;
  actor_id: string | null;
  kind: string;
  from_state: string | null;
  to_state: string | null;
  details: ColumnType<Record<string, unknown>, string, string>;
}

export interface AssetServicesTable {
  organization_id: string;
  id: string;
  asset_id: string;
  port: number;
  protocol: 'tcp' | 'udp';
  name: string | null;
  product: string | null;
  version: string | null;
  cpe: string | null;
  banner: string | null;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}

export interface AssetSoftwareTable {
  organization_id: string;
  id: string;
  asset_id: string;
  name: string;
  name_key: GeneratedAlways<string>;
  version: string;
  vendor: string | null;
  category: string;
  cpe: string | null;
  purl: string | null;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}

export interface ImportsTable {
  organization_id: string;
  id: string;
  state: 'Queued' | 'Running' | 'Completed' | 'Failed';
  format: string | null;
  format_confidence: string | null;
  scope_name: string | null;
  file_name: string | null;
  file_sha256: string;
  file_size: ColumnType<string, number | string, number | string>;
  actor_type: string;
  actor_id: string | null;
  counts: ColumnType<Record<string, number>, string, string>;
  warnings: string[];
  error: string | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  heartbeat_at: Timestamp;
}

export interface ImportAssetsTable {
  organization_id: string;
  import_id: string;
  asset_key: string;
  input: ColumnType<Record<string, unknown>, string, string>;
  asset_id: string | null;
}

export interface ImportVulnerabilitiesTable {
  organization_id: string;
  import_id: string;
  vulnerability_key: string;
  input: ColumnType<Record<string, unknown>, string, string>;
  vulnerability_id: string | null;
}

export interface ImportFindingsTable {
  organization_id: string;
  import_id: string;
  seq: number;
  asset_key: string;
  vulnerability_key: string;
  location_key: string;
  location_kind: string;
  port: number | null;
  protocol: string | null;
  url: string | null;
  parameter: string | null;
  file_path: string | null;
  line: number | null;
  package_name: string | null;
  package_version: string | null;
  title: string;
  severity: string;
  evidence: string | null;
  tool_finding_id: string | null;
  state: string | null;
  confidence: FindingConfidence | null;
  state_reason: string | null;
}

export interface ImportServicesTable {
  organization_id: string;
  import_id: string;
  asset_key: string;
  port: number;
  protocol: string;
  name: string | null;
  product: string | null;
  version: string | null;
  cpe: string | null;
  banner: string | null;
}

export interface ImportSoftwareTable {
  organization_id: string;
  import_id: string;
  asset_key: string;
  name_key: string;
  version: string;
  name: string;
  vendor: string | null;
  category: string;
  cpe: string | null;
  purl: string | null;
}

export interface IntelCvesTable {
  cve_id: string;
  feed: 'nvd' | 'cve5';
  status: string | null;
  rejected: boolean;
  description: string | null;
  published_at: Timestamp | null;
  modified_at: Timestamp | null;
  cvss: ColumnType<unknown[], string, string>;
  cvss2_vector: string | null;
  cvss2_score: Numeric | null;
  cvss3_vector: string | null;
  cvss3_score: Numeric | null;
  cvss4_vector: string | null;
  cvss4_score: Numeric | null;
  cwe_ids: string[];
  reference_urls: string[];
  configurations: ColumnType<unknown[], string, string>;
  content_hash: string;
  source: string;
  loaded_at: Timestamp;
}

export interface IntelKevTable {
  cve_id: string;
  vendor: string | null;
  product: string | null;
  name: string | null;
  description: string | null;
  date_added: string;
  due_date: string | null;
  required_action: string | null;
  known_ransomware: boolean;
  notes: string | null;
  cwe_ids: string[];
  content_hash: string;
  source: string;
  loaded_at: Timestamp;
}

export interface IntelEpssTable {
  cve_id: string;
  score: Numeric;
  percentile: Numeric;
  score_date: string | null;
  source: string;
  loaded_at: Timestamp;
}

export interface IntelOsvTable {
  id: string;
  aliases: string[];
  upstream: Generated<string[]>;
  related: Generated<string[]>;
  summary: string | null;
  details: string | null;
  published_at: Timestamp | null;
  modified_at: Timestamp;
  withdrawn_at: Timestamp | null;
  severity: string | null;
  cvss: ColumnType<unknown[], string, string>;
  cvss3_vector: string | null;
  cvss3_score: Numeric | null;
  cwe_ids: string[];
  reference_urls: string[];
  affected: ColumnType<unknown[], string, string>;
  packages: string[];
  content_hash: string;
  source: string;
  loaded_at: Timestamp;
}

export interface IntelLoadsTable {
  id: string;
  feed: string;
  source: string;
  state: 'Running' | 'Completed' | 'Failed';
  data_date: string | null;
  added: Generated<number>;
  updated: Generated<number>;
  unchanged: Generated<number>;
  skipped: Generated<number>;
  warnings: ColumnType<string[], string, string>;
  error: string | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface IntelSyncLeaseTable {
  id: number;
  holder: string | null;
  lease_until: Timestamp | null;
  last_started_at: Timestamp | null;
  last_finished_at: Timestamp | null;
  last_errors: ColumnType<{ url: string; error: string }[], string, string>;
}

/** The sync from the official sources: one row per source, its progress and last outcome. */
export interface IntelSyncSourcesTable {
  source: string;
  synced_until: Timestamp | null;
  window_start: Timestamp | null;
  window_end: Timestamp | null;
  next_index: Generated<number>;
  total_results: number | null;
  last_started_at: Timestamp | null;
  last_finished_at: Timestamp | null;
  last_success_at: Timestamp | null;
  last_error: string | null;
}

/** The definition last applied of each function of src/db/functions/ (by its hash). */
export interface SqlFunctionsTable {
  name: string;
  content_hash: string;
}

export const JOB_STATES = ['Queued', 'Running', 'Completed', 'Failed', 'Cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobsTable {
  /** Null for a system job, which belongs to no organisation. */
  organization_id: string | null;
  id: string;
  kind: string;
  payload: ColumnType<unknown, string, string>;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: Timestamp;
  locked_by: string | null;
  lease_until: Timestamp | null;
  last_error: string | null;
  dedup_key: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

export const SCAN_RUN_STATES = ['Queued', 'Running', 'Stopping', 'Completed', 'Failed', 'Stopped'] as const;
export type ScanRunState = (typeof SCAN_RUN_STATES)[number];

export interface ScanNodesTable {
  /** Null only for the built-in local node, which serves every organisation. */
  organization_id: string | null;
  id: string;
  name: string;
  kinds: string[];
  version: string;
  capacity: number;
  is_local: Generated<boolean>;
  /** SHA-256 of the node key; null for the local node, which has none. */
  key_hash: Buffer | null;
  enrolment_id: string | null;
  last_heartbeat_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface ScanNodeEnrolmentsTable {
  organization_id: string;
  id: string;
  token_hash: Buffer;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  node_id: string | null;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface ScanRunHistoryEntry {
  at: string;
  state: ScanRunState;
  attempt: number;
  nodeId: string | null;
  message: string | null;
}

/** An address a node refused to scan, as a run keeps it. */
export interface RefusedAddressRow {
  address: string;
  rule: string;
  message: string;
}

export interface ScanRunsTable {
  organization_id: string;
  id: string;
  kind: string;
  source_id: string;
  source_name: string;
  node_id: string | null;
  claimed_by: string | null;
  state: ScanRunState;
  attempt: Generated<number>;
  spec: ColumnType<unknown, string, string>;
  progress_done: ColumnType<string | number, number | undefined, number>;
  progress_total: ColumnType<string | number, number | undefined, number>;
  progress_found: ColumnType<string | number, number | undefined, number>;
  lease_until: Timestamp | null;
  stop_requested: Generated<boolean>;
  error: string | null;
  history: ColumnType<ScanRunHistoryEntry[], string, string>;
  /** The first addresses the node refused (RefusedAddress items), and how many in all. */
  refused: ColumnType<RefusedAddressRow[], string | undefined, string>;
  refused_count: Generated<number>;
  queued_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface ScanRunBatchesTable {
  organization_id: string;
  run_id: string;
  attempt: number;
  seq: number;
  item_count: number;
  received_at: Timestamp;
}

export interface ScanTemplatesTable {
  organization_id: string;
  id: Generated<string>;
  kind: 'Discovery' | 'System' | 'Web';
  name: string;
  description: string | null;
  settings: ColumnType<unknown, string, string>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** What enqueues a job at the times of its rule (src/jobs/scheduler.ts). */
export interface SchedulesTable {
  /** Null for a system schedule. */
  organization_id: string | null;
  id: string;
  key: string;
  rule: ColumnType<unknown, string, string>;
  job_kind: string;
  payload: ColumnType<unknown, string, string>;
  max_attempts: number;
  enabled: boolean;
  next_run_at: Timestamp | null;
  last_run_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface DiscoveryScansTable {
  organization_id: string;
  id: string;
  name: string;
  targets: ColumnType<unknown, string, string>;
  exclusions: ColumnType<unknown, string, string>;
  template_id: string;
  node_id: string | null;
  schedule: ColumnType<unknown, string | null, string | null>;
  notifications: ColumnType<unknown, string, string>;
  responsible_user_id: string | null;
  created_by: string | null;
  last_run_id: string | null;
  last_completed_run_id: string | null;
  last_completed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface DiscoveryRunHostsTable {
  organization_id: string;
  run_id: string;
  scan_id: string;
  address: string;
  hostname: string | null;
  mac_address: string | null;
  os_guess: string | null;
  open_ports: ColumnType<number[], number[], number[]>;
  closed_ports: ColumnType<number[], number[], number[]>;
  status: 'Found' | 'New' | 'Seen' | 'Gone';
  asset_id: string | null;
  seen_at: Timestamp;
}

export interface DiscoveryHostsTable {
  organization_id: string;
  scan_id: string;
  address: string;
  hostname: string | null;
  mac_address: string | null;
  os_guess: string | null;
  asset_id: string | null;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  first_run_id: string;
  last_run_id: string;
}

export interface SystemScansTable {
  organization_id: string;
  id: string;
  name: string;
  targets: ColumnType<unknown, string, string>;
  exclusions: ColumnType<unknown, string, string>;
  template_id: string;
  node_id: string | null;
  schedule: ColumnType<unknown, string | null, string | null>;
  scan_group_id: string | null;
  created_by: string | null;
  last_run_id: string | null;
  last_completed_run_id: string | null;
  last_completed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** What a system scan's run was asked (Verify) and what its ingestion made. */
export interface SystemScanRunsTable {
  organization_id: string;
  run_id: string;
  scan_id: string;
  verify_finding_ids: string[] | null;
  ports: string;
  import_id: string | null;
  counts: ColumnType<unknown, string | null, string | null>;
  backports: ColumnType<unknown, string | undefined, string>;
  ingest_error: string | null;
  ingested_at: Timestamp | null;
}

/** One host of a system scan's run, as the node reported it (a SystemHostResult). */
export interface SystemRunHostsTable {
  organization_id: string;
  run_id: string;
  scan_id: string;
  address: string;
  result: ColumnType<unknown, string, string>;
  seen_at: Timestamp;
}

export interface WebScansTable {
  organization_id: string;
  id: string;
  name: string;
  urls: ColumnType<unknown, string, string>;
  template_id: string;
  node_id: string | null;
  schedule: ColumnType<unknown, string | null, string | null>;
  scan_group_id: string | null;
  created_by: string | null;
  last_run_id: string | null;
  last_completed_run_id: string | null;
  last_completed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** One URL a web run reported (the node's WebUrlResult, checked). */
export interface WebRunUrlsTable {
  organization_id: string;
  run_id: string;
  scan_id: string;
  url: string;
  result: ColumnType<unknown, string, string>;
  seen_at: Timestamp;
}

/** What became of a web run: a Verify run's findings, the import of its results. */
export interface WebRunsTable {
  organization_id: string;
  run_id: string;
  scan_id: string;
  verify_finding_ids: ColumnType<unknown, string | null, string | null>;
  import_id: string | null;
  counts: ColumnType<unknown, string | null, string | null>;
  ingest_error: string | null;
  created_at: CreatedAt;
}

export interface ScanGroupsTable {
  organization_id: string;
  id: string;
  name: string;
  description: string | null;
  responsible_user_id: string | null;
  scanning_mode: string;
  system_settings: ColumnType<unknown, string, string>;
  web_settings: ColumnType<unknown, string, string>;
  notifications: ColumnType<unknown, string, string>;
  notes: ColumnType<unknown, string, string>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ScanGroupMonitorsTable {
  organization_id: string;
  group_id: string;
  id: string;
  position: number;
  is_active: boolean;
  discovery_scan_id: string;
  options: ColumnType<unknown, string, string>;
}

export interface ScanGroupTrackedTable {
  organization_id: string;
  group_id: string;
  kind: 'System' | 'Web';
  address: string;
  port: number;
  scan_id: string;
  known_ports: ColumnType<number[], number[], number[]>;
  created_at: CreatedAt;
}

export const ALLOWED_TARGET_KINDS = ['Allowed', 'Excluded'] as const;
export type AllowedTargetKind = (typeof ALLOWED_TARGET_KINDS)[number];

/** An organisation's allowed scan targets and exclusions (src/modules/allowedtargets). */
export interface AllowedTargetsTable {
  organization_id: string;
  id: string;
  kind: AllowedTargetKind;
  /** The canonical target text: a CIDR, a first-last range, an address, a host name or a *. wildcard. */
  target: string;
  description: string | null;
  /** The user who added it; null when the CLI or the system did. */
  created_by: string | null;
  created_at: CreatedAt;
}

/** Events written with their change, pending until the events-dispatch job hands them on. */
export interface EventOutboxTable {
  organization_id: string;
  id: string;
  seq: GeneratedAlways<string>;
  type: string;
  schema_version: number;
  subject: string | null;
  time: Timestamp;
  data: ColumnType<unknown, string, string>;
  facets: ColumnType<Record<string, unknown>, string, string>;
  created_at: CreatedAt;
  dispatched_at: Timestamp | null;
}

/** Occurrences published once only (a finding's SLA breach for one due date). */
export interface EventMarksTable {
  organization_id: string;
  key: string;
  created_at: CreatedAt;
}

export const NOTIFICATION_CHANNEL_KINDS = ['Webhook', 'Slack', 'Teams', 'Email'] as const;
export type NotificationChannelKind = (typeof NOTIFICATION_CHANNEL_KINDS)[number];
export const DELIVERY_STATES = ['Pending', 'Delivering', 'Succeeded', 'Failed', 'Dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Where an organisation's notifications go (src/modules/notifications). */
export interface NotificationEndpointsTable {
  organization_id: string;
  id: string;
  name: string;
  kind: NotificationChannelKind;
  url: string;
  /** Signs webhook bodies; kept as generated (see migration 0030_c), never returned after creation. */
  secret: string | null;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: Timestamp | null;
  consecutive_failures: Generated<number>;
  failing_since: Timestamp | null;
  rate_per_minute: number;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** An OpenID Connect provider of an organisation (src/modules/sso). */
export interface SsoProvidersTable {
  organization_id: string;
  id: string;
  name: string;
  issuer_url: string;
  client_id: string;
  /** Sent to the provider's token endpoint; kept as given (migration 0031_c), never returned or logged. */
  client_secret: string | null;
  scopes: string[];
  groups_claim: string;
  /** The role of a user none of whose groups is mapped; null: such users are refused. */
  default_role: Role | null;
  role_mappings: ColumnType<{ group: string; role: Role }[], string, string>;
  enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** A provider's subject linked to a Rampart user (src/modules/sso). */
export interface SsoIdentitiesTable {
  organization_id: string;
  provider_id: string;
  subject: string;
  user_id: string;
  created_at: CreatedAt;
  last_sign_in_at: Timestamp;
}

/** A single sign-on under way: what the callback checks the provider's answer against. */
export interface SsoAttemptsTable {
  organization_id: string;
  id: string;
  provider_id: string;
  cookie_hash: Buffer;
  state: string;
  nonce: string;
  code_verifier: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

/** Whether an organisation's people sign in with single sign-on only (src/modules/sso). */
export interface SsoSettingsTable {
  organization_id: string;
  sso_only: Generated<boolean>;
  updated_at: Timestamp;
}

/** Which events go to which endpoints (src/modules/notifications). */
export interface NotificationRulesTable {
  organization_id: string;
  id: string;
  name: string;
  event_types: ColumnType<string[], string[], string[]>;
  min_severity: Severity | null;
  kev_only: Generated<boolean>;
  risk_above: number | null;
  tag: string | null;
  scan_group_id: string | null;
  asset_id: string | null;
  /** Only this scan's events (a rule a scan owns); added by 0030_f. */
  scan_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The scan or scan group that owns the rule ({Kind, Id, Name}); null for a rule of the API. */
  managed_by: ColumnType<
    { Kind: 'DiscoveryScan' | 'ScanGroup'; Id: string; Name: string } | null,
    string | null | undefined,
    string | null
  >;
  endpoint_ids: ColumnType<string[], string[], string[]>;
  enabled: Generated<boolean>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** One event's delivery to one endpoint (src/modules/notifications). */
export interface NotificationDeliveriesTable {
  organization_id: string;
  id: string;
  seq: GeneratedAlways<string>;
  endpoint_id: string;
  rule_id: string | null;
  event_id: string;
  event_type: string;
  event: ColumnType<unknown, string, string>;
  state: DeliveryState;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  lease_until: Timestamp | null;
  last_status: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  delivered_at: Timestamp | null;
}

/** Each attempt of a delivery: the delivery log (src/modules/notifications). */
export interface NotificationAttemptsTable {
  organization_id: string;
  id: string;
  delivery_id: string;
  endpoint_id: string;
  attempt: number;
  at: Timestamp;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

export interface UserNotificationPreferencesTable {
  organization_id: string;
  user_id: string;
  event_types: string[];
  mode: 'Immediate' | 'Digest';
  updated_at: Timestamp;
}

export interface NotificationEmailQueueTable {
  organization_id: string;
  id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  envelope: ColumnType<Record<string, unknown>, string, string>;
  mode: 'Immediate' | 'Digest';
  state: Generated<'Pending' | 'Sent' | 'Failed' | 'Skipped'>;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
}

export const HISTORY_SCOPE_KINDS = ['Organization', 'Tag', 'ScanGroup'] as const;
export type HistoryScopeKind = (typeof HISTORY_SCOPE_KINDS)[number];

/** One day of an organisation's history in one scope (src/modules/history). */
export interface FindingHistoryTable {
  organization_id: string;
  scope_kind: HistoryScopeKind;
  /** '' for the organisation, the tag, or the scan group's id. */
  scope_key: string;
  /** The calendar day in the organisation's time zone, as YYYY-MM-DD. */
  day: ColumnType<string, string, string>;
  open_critical: number;
  open_high: number;
  open_medium: number;
  open_low: number;
  open_info: number;
  state_open: number;
  state_reopened: number;
  state_risk_accepted: number;
  state_false_positive: number;
  state_fixed: number;
  new_count: number;
  fixed_count: number;
  reopened_count: number;
  past_sla: number;
  due_soon: number;
  risk_exposure: Numeric;
  kev_open: number;
  assets_seen: number;
  assets_scanned: number;
  mttr_critical_mean: Numeric | null;
  mttr_critical_median: Numeric | null;
  mttr_critical_count: number;
  mttr_high_mean: Numeric | null;
  mttr_high_median: Numeric | null;
  mttr_high_count: number;
  mttr_medium_mean: Numeric | null;
  mttr_medium_median: Numeric | null;
  mttr_medium_count: number;
  mttr_low_mean: Numeric | null;
  mttr_low_median: Numeric | null;
  mttr_low_count: number;
  mttr_info_mean: Numeric | null;
  mttr_info_median: Numeric | null;
  mttr_info_count: number;
  computed_at: Timestamp;
}

/** How far an organisation's history was built, and by which version of the computation. */
export interface FindingHistoryBuildsTable {
  organization_id: string;
  version: number;
  state: 'Queued' | 'Running' | 'Completed' | 'Failed';
  first_day: ColumnType<string | null, string | null, string | null>;
  last_day: ColumnType<string | null, string | null, string | null>;
  days_done: number;
  days_total: number;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  last_error: string | null;
  updated_at: Timestamp;
}

/** A saved report definition (src/modules/reports, migration 0030_e). */
export interface ReportDefinitionsTable {
  organization_id: string;
  id: string;
  name: string;
  kind: 'Executive' | 'Technical';
  format: 'Pdf' | 'Html' | 'Csv';
  scope: ColumnType<unknown, string, string>;
  filter: ColumnType<unknown, string | null, string | null>;
  group_by: ColumnType<
    'Asset' | 'Vulnerability',
    'Asset' | 'Vulnerability' | undefined,
    'Asset' | 'Vulnerability'
  >;
  period_days: ColumnType<number, number | undefined, number>;
  schedule: ColumnType<unknown, string | null, string | null>;
  recipients: ColumnType<string[], string[] | undefined, string[]>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** A report made (or being made): its history entry and its file's description. */
export interface ReportRunsTable {
  organization_id: string;
  id: string;
  definition_id: string | null;
  name: string;
  kind: 'Executive' | 'Technical';
  format: 'Pdf' | 'Html' | 'Csv';
  spec: ColumnType<unknown, string, string>;
  state: 'Queued' | 'Running' | 'Completed' | 'Failed';
  progress: Generated<number>;
  rows_total: number | null;
  rows_written: Generated<number>;
  error: string | null;
  size_bytes: ColumnType<string | null, number | null, number | null>;
  page_count: number | null;
  content_type: string | null;
  file_name: string | null;
  delivered_at: Timestamp | null;
  delivery_error: string | null;
  actor_type: string;
  actor_id: string | null;
  created_at: CreatedAt;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** A report file's bytes, in order. */
export interface ReportChunksTable {
  organization_id: string;
  report_id: string;
  seq: number;
  data: Buffer;
}

/** An Idempotency-Key's slot and, once its first request has answered, that answer (0031_a). */
export interface IdempotencyKeysTable {
  organization_id: string;
  principal_kind: 'apikey' | 'user' | 'node';
  principal_id: string;
  key: string;
  owner: string;
  method: string;
  route: string;
  fingerprint: string | null;
  state: 'InFlight' | 'Completed';
  status: number | null;
  headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  body: Buffer | null;
  withheld: 'secret' | 'too-large' | null;
  created_at: Timestamp;
  lease_until: Timestamp;
  expires_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface DB {
  scan_templates: ScanTemplatesTable;
  discovery_scans: DiscoveryScansTable;
  discovery_run_hosts: DiscoveryRunHostsTable;
  discovery_hosts: DiscoveryHostsTable;
  system_scans: SystemScansTable;
  system_scan_runs: SystemScanRunsTable;
  system_run_hosts: SystemRunHostsTable;
  web_scans: WebScansTable;
  web_run_urls: WebRunUrlsTable;
  web_runs: WebRunsTable;
  scan_groups: ScanGroupsTable;
  scan_group_monitors: ScanGroupMonitorsTable;
  scan_group_tracked: ScanGroupTrackedTable;
  jobs: JobsTable;
  scan_nodes: ScanNodesTable;
  scan_node_enrolments: ScanNodeEnrolmentsTable;
  scan_runs: ScanRunsTable;
  scan_run_batches: ScanRunBatchesTable;
  allowed_targets: AllowedTargetsTable;
  schedules: SchedulesTable;
  sql_functions: SqlFunctionsTable;
  intel_sync_lease: IntelSyncLeaseTable;
  intel_sync_sources: IntelSyncSourcesTable;
  intel_cves: IntelCvesTable;
  intel_kev: IntelKevTable;
  intel_epss: IntelEpssTable;
  intel_osv: IntelOsvTable;
  intel_loads: IntelLoadsTable;
  organizations: OrganizationsTable;
  people: PeopleTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  audit_events: AuditEventsTable;
  organization_settings: OrganizationSettingsTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  assets: AssetsTable;
  asset_identifiers: AssetIdentifiersTable;
  asset_services: AssetServicesTable;
  asset_software: AssetSoftwareTable;
  imports: ImportsTable;
  import_assets: ImportAssetsTable;
  import_vulnerabilities: ImportVulnerabilitiesTable;
  import_findings: ImportFindingsTable;
  import_services: ImportServicesTable;
  import_software: ImportSoftwareTable;
  vulnerabilities: VulnerabilitiesTable;
  findings: FindingsTable;
  finding_sightings: FindingSightingsTable;
  finding_events: FindingEventsTable;
  tickets: TicketsTable;
  ticket_findings: TicketFindingsTable;
  ticket_comments: TicketCommentsTable;
  ticket_events: TicketEventsTable;
  event_outbox: EventOutboxTable;
  event_marks: EventMarksTable;
  notification_endpoints: NotificationEndpointsTable;
  notification_rules: NotificationRulesTable;
  notification_deliveries: NotificationDeliveriesTable;
  notification_attempts: NotificationAttemptsTable;
  user_notification_preferences: UserNotificationPreferencesTable;
  notification_email_queue: NotificationEmailQueueTable;
  finding_history: FindingHistoryTable;
  finding_history_builds: FindingHistoryBuildsTable;

  report_definitions: ReportDefinitionsTable;
  report_runs: ReportRunsTable;
  report_chunks: ReportChunksTable;
  sso_providers: SsoProvidersTable;
  sso_identities: SsoIdentitiesTable;
  sso_attempts: SsoAttemptsTable;
  sso_settings: SsoSettingsTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
