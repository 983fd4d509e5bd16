import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Timestamps come back from `pg` as Date and may be written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export const ROLES = ['ReadOnly', 'Analyst', 'Manager', 'Admin'] as const;
export type Role = (typeof ROLES)[number];

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: CreatedAt;
}

export interface UsersTable {
  organization_id: string;
  id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
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
  next_ticket_number: Generated<number>;
  updated_at: Generated<Date>;
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
  updated_at: Generated<Date>;
}

export interface AssetIdentifiersTable {
  organization_id: string;
  kind: IdentifierKind;
  value: string;
  asset_id: string;
}

export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  audit_events: AuditEventsTable;
  organization_settings: OrganizationSettingsTable;
  assets: AssetsTable;
  asset_identifiers: AssetIdentifiersTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
