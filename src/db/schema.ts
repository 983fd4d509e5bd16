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

export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  audit_events: AuditEventsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
