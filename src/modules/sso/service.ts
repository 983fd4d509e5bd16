import { createHash, randomBytes } from 'node:crypto';
import { ROLES, type Role } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalidFields } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import { type ServiceContext, SYSTEM } from '../context.js';
import { roleRank } from '../principal.js';
import type { User, UserService } from '../users/service.js';
import {
  authorizationRequest,
  completeAuthorization,
  isLoopbackHost,
  OidcError,
  type OidcFailure,
} from './oidc.js';
import type { ProviderWrite, SsoRepository } from './repository.js';

export interface SsoProvider {
  organizationId: string;
  id: string;
  name: string;
  issuerUrl: string;
  clientId: string;
  hasClientSecret: boolean;
  scopes: string[];
  groupsClaim: string;
  defaultRole: Role | null;
  roleMappings: { group: string; role: Role }[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProviderInput {
  name: string;
  issuerUrl: string;
  clientId: string;
  /** A new secret; null: none (a public client, PKCE only); undefined on a change: keep the one there is. */
  clientSecret?: string | null;
  scopes?: string[];
  groupsClaim?: string;
  defaultRole?: Role | null;
  roleMappings?: { group: string; role: Role }[];
  enabled?: boolean;
}

/**
 * Why a single sign-on was refused: the sign-in page tells the user what each means (web
 * src/features/signin/SsoSignIn.tsx), the audit log records it (session.sso_sign_in_failed).
 */
export type SsoRefusal =
  | OidcFailure
  | 'unknown-provider'
  | 'attempt-unknown'
  | 'no-email'
  | 'email-invalid'
  | 'email-elsewhere'
  | 'email-unverified'
  | 'no-role'
  | 'inactive';

export class SsoRefused extends Error {
  constructor(
    readonly reason: SsoRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface SsoOptions {
  /** RAMPART_SSO_ALLOW_LOOPBACK: issuers on the server's own machine, over http too. */
  allowLoopback: boolean;
  /** RAMPART_BASE_URL: where the provider sends the browser back to. */
  baseUrl: string;
}

/** How long a browser has to come back from the provider. */
const ATTEMPT_MINUTES = 10;
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/;
const CLAIM_NAME = /^[A-Za-z0-9_.:/-]{1,100}$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

type ProviderRow = NonNullable<Awaited<ReturnType<SsoRepository['findProvider']>>>;

const toProvider = (row: ProviderRow): SsoProvider => ({
  organizationId: row.organization_id,
  id: row.id,
  name: row.name,
  issuerUrl: row.issuer_url,
  clientId: row.client_id,
  hasClientSecret: row.client_secret !== null,
  scopes: row.scopes,
  groupsClaim: row.groups_claim,
  defaultRole: row.default_role,
  roleMappings: row.role_mappings,
  enabled: row.enabled,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The callback address of a provider: what an Admin registers at the provider as redirect URI. */
export function redirectUriOf(baseUrl: string, providerId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/latest/auth/oidc/${providerId}/callback`;
}

/**
 * Single sign-on with OpenID Connect: the organisation's providers (configured by Admins), the
 * sign-in flow (authorisation code with PKCE, through openid-client), the users it finds or
 * creates and the roles their groups map to, on every sign-in. The session itself is the
 * sessions module's (SessionService.startFor).
 */
export class SsoService {
  constructor(
    private readonly repo: SsoRepository,
    private readonly users: UserService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly options: SsoOptions,
  ) {}

  redirectUri(providerId: string): string {
    return redirectUriOf(this.options.baseUrl, providerId);
  }

  async list(ctx: ServiceContext): Promise<SsoProvider[]> {
    return (await this.repo.listProviders(ctx.organizationId)).map(toProvider);
  }

  async get(ctx: ServiceContext, id: string): Promise<SsoProvider> {
    const row = await this.repo.findProvider(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No single sign-on provider ${id} in your organisation.`);
    return toProvider(row);
  }

  /** The enabled providers, by name, that the sign-in page offers. */
  async signInChoices(): Promise<{ id: string; name: string }[]> {
    return (await this.repo.listEnabledProviders()).map((p) => ({ id: p.id, name: p.name }));
  }

  async create(ctx: ServiceContext, input: ProviderInput): Promise<SsoProvider> {
    const write = this.checked(input, null);
    await this.assertNoClash(ctx, null, write);
    const row = await this.repo.insertProvider(ctx.organizationId, uuidv7(), write, this.clock());
    await this.audit.record(
      ctx,
      'ssoprovider.created',
      { type: 'ssoprovider', id: row.id },
      { name: write.name, issuer: write.issuerUrl, clientId: write.clientId },
    );
    return toProvider(row);
  }

  async update(ctx: ServiceContext, id: string, changes: Partial<ProviderInput>): Promise<SsoProvider> {
    const current = await this.repo.findProvider(ctx.organizationId, id);
    if (!current)
      throw AppError.of(Problems.NotFound, `No single sign-on provider ${id} in your organisation.`);
    const write = this.checked(
      {
        name: changes.name ?? current.name,
        issuerUrl: changes.issuerUrl ?? current.issuer_url,
        clientId: changes.clientId ?? current.client_id,
        scopes: changes.scopes ?? current.scopes,
        groupsClaim: changes.groupsClaim ?? current.groups_claim,
        defaultRole: changes.defaultRole === undefined ? current.default_role : changes.defaultRole,
        roleMappings: changes.roleMappings ?? current.role_mappings,
        enabled: changes.enabled ?? current.enabled,
        clientSecret: changes.clientSecret,
      },
      current.client_secret,
    );
    await this.assertNoClash(ctx, id, write);
    const row = await this.repo.updateProvider(ctx.organizationId, id, write, this.clock());
    if (!row) throw AppError.of(Problems.NotFound, `No single sign-on provider ${id} in your organisation.`);
    // What changed, by field name; the secret only as "changed", never its value.
    const changed = Object.keys(changes).filter((k) => changes[k as keyof ProviderInput] !== undefined);
    await this.audit.record(ctx, 'ssoprovider.changed', { type: 'ssoprovider', id }, { fields: changed });
    return toProvider(row);
  }

  async remove(ctx: ServiceContext, id: string): Promise<void> {
    const provider = await this.get(ctx, id);
    await this.repo.deleteProvider(ctx.organizationId, id);
    await this.audit.record(ctx, 'ssoprovider.deleted', { type: 'ssoprovider', id }, { name: provider.name });
  }

  async ssoOnly(ctx: ServiceContext): Promise<boolean> {
    return this.repo.ssoOnly(ctx.organizationId);
  }

  /**
   * Turns "single sign-on only" on or off. On needs an enabled provider, so that the organisation's
   * people are never left with no way in (API keys keep working either way).
   */
  async setSsoOnly(ctx: ServiceContext, ssoOnly: boolean): Promise<boolean> {
    const before = await this.repo.ssoOnly(ctx.organizationId);
    if (ssoOnly && !(await this.list(ctx)).some((p) => p.enabled)) {
      throw invalidFields(
        [{ field: 'ssoOnly', message: 'needs an enabled single sign-on provider first' }],
        'Single sign-on only needs an enabled provider first: otherwise nobody could sign in to the web app.',
      );
    }
    await this.repo.setSsoOnly(ctx.organizationId, ssoOnly, this.clock());
    if (before !== ssoOnly)
      await this.audit.record(ctx, 'settings.sso_only_changed', null, { from: before, to: ssoOnly });
    return ssoOnly;
  }

  /** Whether the organisation refuses password sign-in (its people sign in through a provider). */
  passwordSignInRefused(organizationId: string): Promise<boolean> {
    return this.repo.ssoOnly(organizationId);
  }

  /**
   * Starts a sign-in at a provider: the URL to send the browser to, and the value of the cookie
   * that ties the attempt to this browser (the state, nonce and PKCE verifier stay on the server).
   */
  async start(providerId: string): Promise<{ url: string; cookie: string; maxAgeSeconds: number }> {
    const provider = await this.enabledProvider(providerId);
    const request = await authorizationRequest(
      {
        issuerUrl: provider.issuer_url,
        clientId: provider.client_id,
        clientSecret: provider.client_secret,
      },
      this.redirectUri(provider.id),
      provider.scopes,
    ).catch(async (error: unknown) => {
      if (error instanceof OidcError) await this.refusalRecorded(provider, error.reason, error.message);
      throw error;
    });
    const now = this.clock();
    await this.repo.deleteExpiredAttempts(now);
    const cookie = randomBytes(32).toString('base64url');
    await this.repo.insertAttempt({
      organizationId: provider.organization_id,
      id: uuidv7(),
      providerId: provider.id,
      cookieHash: sha256(cookie),
      state: request.state,
      nonce: request.nonce,
      codeVerifier: request.codeVerifier,
      now,
      expiresAt: new Date(now.getTime() + ATTEMPT_MINUTES * 60_000),
    });
    return { url: request.url.href, cookie, maxAgeSeconds: ATTEMPT_MINUTES * 60 };
  }

  /**
   * Completes a sign-in: checks the provider's answer against the attempt of this browser's
   * cookie (openid-client checks state, issuer, audience, signature, nonce and PKCE), then finds
   * or creates the user and gives them the role their groups map to. Throws SsoRefused.
   */
  async complete(
    providerId: string,
    callbackQuery: string,
    attemptCookie: string | undefined,
    meta: { ipAddress?: string; requestId?: string },
  ): Promise<User> {
    const provider = await this.enabledProvider(providerId);
    const attempt = attemptCookie
      ? await this.repo.takeAttempt(provider.organization_id, sha256(attemptCookie))
      : undefined;
    const refuse = async (reason: SsoRefusal, message: string, user?: User): Promise<never> => {
      await this.refusalRecorded(provider, reason, message, meta, user);
      throw new SsoRefused(reason, message);
    };
    if (
      !attempt ||
      attempt.provider_id !== provider.id ||
      attempt.expires_at.getTime() <= this.clock().getTime()
    ) {
      return refuse(
        'attempt-unknown',
        'No sign-in attempt of this browser is under way with this provider (never started, used already, or older than 10 minutes).',
      );
    }
    let claims: Record<string, unknown>;
    try {
      claims = await completeAuthorization(
        {
          issuerUrl: provider.issuer_url,
          clientId: provider.client_id,
          clientSecret: provider.client_secret,
        },
        new URL(`${this.redirectUri(provider.id)}${callbackQuery}`),
        { state: attempt.state, nonce: attempt.nonce, codeVerifier: attempt.code_verifier },
      );
    } catch (error) {
      if (error instanceof OidcError) return refuse(error.reason, error.message);
      throw error;
    }
    const subject = String(claims.sub);
    const email = typeof claims.email === 'string' ? claims.email.trim() : '';
    const ctx: ServiceContext = { organizationId: provider.organization_id, actor: SYSTEM, ...meta };
    const role = this.roleOf(toProvider(provider), claims);
    let user = await this.linkedUser(ctx, provider.id, subject);
    if (!user) {
      if (!email)
        return refuse('no-email', 'The provider sent no email claim: ask it for the "email" scope.');
      // A provider vouches for people in its own organisation only: it never joins a person of
      // another one (an Admin adds them there first; then the provider links to that membership).
      const existing = await this.users.findInOrganization(provider.organization_id, email);
      if (!existing && (await this.users.personExists(email)))
        return refuse('email-elsewhere', `A user with email ${email} belongs to another organisation.`);
      if (existing && claims.email_verified === false)
        return refuse(
          'email-unverified',
          `The provider says ${email} is not verified: it is not linked to the existing user.`,
        );
      if (!role)
        return refuse(
          'no-role',
          'None of the user’s groups is mapped to a role, and the provider has no default role.',
          existing,
        );
      if (existing) user = existing;
      else {
        try {
          user = await this.users.create(ctx, { email, name: nameOf(claims, email), role });
        } catch (error) {
          if (error instanceof AppError && error.problem === Problems.ValidationFailed)
            return refuse('email-invalid', `The provider's email "${email.slice(0, 320)}": ${error.detail}`);
          throw error;
        }
      }
    }
    if (!user.active) return refuse('inactive', `The user ${user.email} is deactivated.`, user);
    if (!role)
      return refuse(
        'no-role',
        'None of the user’s groups is mapped to a role, and the provider has no default role.',
        user,
      );
    await this.repo.linkIdentity(provider.organization_id, provider.id, subject, user.id, this.clock());
    if (user.role !== role) user = await this.roleApplied(ctx, user, role);
    return user;
  }

  /** Every sign-in applies the role the groups map to; the last Admin keeps the role (users.update refuses). */
  private async roleApplied(ctx: ServiceContext, user: User, role: Role): Promise<User> {
    try {
      return await this.users.update(ctx, user.id, { role });
    } catch (error) {
      if (error instanceof AppError && error.problem === Problems.Conflict) return user;
      throw error;
    }
  }

  private async linkedUser(
    ctx: ServiceContext,
    providerId: string,
    subject: string,
  ): Promise<User | undefined> {
    const identity = await this.repo.findIdentity(ctx.organizationId, providerId, subject);
    if (!identity) return undefined;
    return this.users.get(ctx, identity.user_id).catch(() => undefined);
  }

  /** The highest role the user's groups map to; else the default role; else null (refused). */
  roleOf(
    provider: Pick<SsoProvider, 'groupsClaim' | 'roleMappings' | 'defaultRole'>,
    claims: Record<string, unknown>,
  ): Role | null {
    const groups = groupsOf(claims, provider.groupsClaim);
    let best: Role | null = null;
    for (const mapping of provider.roleMappings) {
      if (!groups.includes(mapping.group)) continue;
      if (best === null || roleRank(mapping.role) > roleRank(best)) best = mapping.role;
    }
    return best ?? provider.defaultRole;
  }

  private async enabledProvider(providerId: string): Promise<ProviderRow> {
    const provider = await this.repo.findProviderAnywhere(providerId);
    if (!provider?.enabled)
      throw new SsoRefused('unknown-provider', `No enabled single sign-on provider ${providerId}.`);
    return provider;
  }

  private async refusalRecorded(
    provider: ProviderRow,
    reason: SsoRefusal,
    message: string,
    meta: { ipAddress?: string; requestId?: string } = {},
    user?: User,
  ): Promise<void> {
    await this.audit.record(
      {
        organizationId: provider.organization_id,
        actor: user ? { type: 'user', id: user.id } : SYSTEM,
        ...meta,
      },
      'session.sso_sign_in_failed',
      { type: 'ssoprovider', id: provider.id },
      { provider: provider.name, reason, message: message.slice(0, 500) },
    );
  }

  /** An Admin's input, checked: what the repository writes. */
  private checked(input: ProviderInput, currentSecret: string | null): ProviderWrite {
    const issues: { field: string | readonly string[]; message: string }[] = [];
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100)
      issues.push({ field: 'name', message: 'must have 1 to 100 characters' });
    const issuer = this.issuerProblem(input.issuerUrl.trim());
    if (issuer) issues.push({ field: 'issuerUrl', message: issuer });
    const clientId = input.clientId.trim();
    if (clientId.length === 0) issues.push({ field: 'clientId', message: 'must not be empty' });
    const scopes = [...new Set(input.scopes ?? DEFAULT_SCOPES)];
    if (!scopes.includes('openid')) issues.push({ field: 'scopes', message: 'must include openid' });
    for (const scope of scopes)
      if (!SCOPE_TOKEN.test(scope))
        issues.push({ field: 'scopes', message: `"${scope.slice(0, 100)}" is not a scope token` });
    const groupsClaim = (input.groupsClaim ?? 'groups').trim();
    if (!CLAIM_NAME.test(groupsClaim))
      issues.push({ field: 'groupsClaim', message: 'must be a claim name (letters, digits, _ . : / -)' });
    const mappings = input.roleMappings ?? [];
    const seen = new Set<string>();
    for (const [i, m] of mappings.entries()) {
      const group = m.group.trim();
      if (!group) issues.push({ field: ['roleMappings', String(i), 'group'], message: 'must not be empty' });
      if (seen.has(group))
        issues.push({
          field: ['roleMappings', String(i), 'group'],
          message: `maps "${group}" a second time`,
        });
      seen.add(group);
      if (!ROLES.includes(m.role))
        issues.push({
          field: ['roleMappings', String(i), 'role'],
          message: `must be one of ${ROLES.join(', ')}`,
        });
    }
    if (issues.length > 0) throw invalidFields(issues);
    return {
      name,
      issuerUrl: input.issuerUrl.trim().replace(/\/+$/, ''),
      clientId,
      clientSecret: input.clientSecret === undefined ? currentSecret : input.clientSecret,
      scopes,
      groupsClaim,
      defaultRole: input.defaultRole === undefined ? 'ReadOnly' : input.defaultRole,
      roleMappings: mappings.map((m) => ({ group: m.group.trim(), role: m.role })),
      enabled: input.enabled ?? true,
    };
  }

  /** Why an issuer URL is refused, or null: https (http only on loopback), no query or credentials. */
  private issuerProblem(text: string): string | null {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'is not a URL';
    }
    if (url.username || url.password) return 'must not carry a user name or password';
    if (url.search || url.hash) return 'must have no query or fragment';
    const loopback = isLoopbackHost(url.hostname);
    if (loopback && !this.options.allowLoopback)
      return 'is on the server’s own machine (loopback), allowed only when the server sets RAMPART_SSO_ALLOW_LOOPBACK=true';
    if (url.protocol === 'http:' && !loopback) return 'must be an https URL';
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
    if (/^169\.254\.|^\[?fe80:/i.test(url.hostname) || url.hostname === 'metadata.google.internal')
      return 'is a link-local or cloud metadata address';
    return null;
  }

  private async assertNoClash(ctx: ServiceContext, id: string | null, w: ProviderWrite): Promise<void> {
    const clash = await this.repo.findClash(ctx.organizationId, id, w.name, w.issuerUrl, w.clientId);
    if (!clash) return;
    throw AppError.of(
      Problems.Conflict,
      clash.name.toLowerCase() === w.name.toLowerCase()
        ? `A single sign-on provider named "${clash.name}" already exists.`
        : `The provider "${clash.name}" already has issuer ${w.issuerUrl} and client id ${w.clientId}.`,
    );
  }
}

/** The groups of a user: the claim's strings (an array, or one string); nothing when absent. */
function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

function nameOf(claims: Record<string, unknown>, email: string): string {
  for (const key of ['name', 'preferred_username']) {
    const value = claims[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 200);
  }
  return email.split('@')[0] ?? email;
}
