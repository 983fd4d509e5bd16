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
  TotalCount: number;
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
