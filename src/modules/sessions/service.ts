import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { SessionPrincipal } from '../principal.js';
import { hashPassword, verifyPassword } from '../users/password.js';
import type { User, UserAccessChanged, UserService } from '../users/service.js';
import type { SessionRepository } from './repository.js';

export const SIGN_IN_FAILED = 'The email or password is incorrect.';
export const SSO_REQUIRED =
  'Your organisation signs in with single sign-on only: use its "Sign in with" button on the sign-in page. (API keys keep working.)';

export interface SessionLifetimes {
  idleMinutes: number;
  absoluteHours: number;
}

/** Where a sign-in comes from, for its session and its audit entries. */
export interface SignInMeta {
  ipAddress: string | null;
  userAgent: string | null;
  /** The session cookie the browser held before: ended at the password step. */
  previousToken?: string;
  requestId?: string;
}

export interface SignedIn {
  user: User;
  token: string;
  csrfToken: string;
  /** The session's whole lifetime, for the cookie (the browser counts it from its own clock). */
  maxAgeSeconds: number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const newToken = () => randomBytes(32).toString('base64url');

/**
 * The CSRF token of a session is derived from its cookie token: a page on another origin cannot
 * read the cookie, so it cannot produce the token, and the app can get it again after a reload.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`, 'utf8').digest('base64url');
}
// Last-seen times are written at most this often per session: idle expiry needs no write per request.
const TOUCH_INTERVAL_MS = 60_000;

/** Web sessions: server-side rows any instance can validate, revoked by sign-out. */
export class SessionService {
  // Compared against when the email is unknown, so that timing does not reveal which emails exist.
  private readonly dummyHash: Promise<string> = hashPassword(randomBytes(16).toString('hex'));

  constructor(
    private readonly repo: SessionRepository,
    private readonly users: UserService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly lifetimes: SessionLifetimes,
    userAccessChanged: UserAccessChanged,
    /** Whether an organisation refuses password sign-in (single sign-on only, src/modules/sso). */
    private readonly passwordSignInRefused: (organizationId: string) => Promise<boolean> = async () => false,
    /** Whether an organisation is active (a deactivated one is signed in to by nobody). */
    private readonly organizationActive: (organizationId: string) => Promise<boolean> = async () => true,
  ) {
    userAccessChanged.subscribe(async (organizationId, userId, { endSessions, keepSessionId }) => {
      if (endSessions) await this.endAllFor(organizationId, userId, keepSessionId);
    });
  }

  /**
   * The password step of a sign-in: the user whose email and password these are, or the same 401
   * whatever was wrong. Their session starts with startFor, after the second step when the mfa
   * module asks for one (src/modules/sessions/routes.ts): there is no sign-in that skips it.
   */
  async checkPassword(email: string, password: string, meta: SignInMeta): Promise<User> {
    const found = await this.users.findForSignIn(email);
    const valid = await verifyPassword(password, found?.passwordHash ?? (await this.dummyHash));
    const now = this.clock();
    // Rotation: whatever session the browser held before is ended, never upgraded.
    if (meta.previousToken) await this.repo.revokeByTokenHash(sha256(meta.previousToken), now);
    const usable = found ? await this.usableMemberships(found.memberships) : [];
    // Failures are recorded where the person signed in last (or their first organisation).
    const home = found && preferred(found.memberships, found.person.lastOrganizationId);
    const failed = (reason: string) =>
      home &&
      this.audit.record(
        {
          organizationId: home.organizationId,
          actor: { type: 'user', id: home.id },
          ipAddress: meta.ipAddress ?? undefined,
          requestId: meta.requestId,
        },
        'session.sign_in_failed',
        { type: 'user', id: home.id },
        { email: email.trim().slice(0, 320), reason },
      );
    if (!found || !valid || usable.length === 0 || !found.passwordHash) {
      // An email nobody has belongs to no organisation, and every entry belongs to one: those
      // attempts are not in the audit log (the sign-in throttle counts them by address). The
      // password is never recorded.
      if (found) await failed(usable.length === 0 || !found.passwordHash ? 'inactive' : 'password');
      throw AppError.of(Problems.Unauthenticated, SIGN_IN_FAILED);
    }
    const open: User[] = [];
    for (const m of usable) if (!(await this.passwordSignInRefused(m.organizationId))) open.push(m);
    const user = preferred(open, found.person.lastOrganizationId);
    if (!user) {
      // Told only to whoever knows the password: the others get the same answer as any wrong one.
      await failed('sso-only');
      throw AppError.of(Problems.SsoRequired, SSO_REQUIRED);
    }
    return user;
  }

  /** The memberships one can be signed in to: active, in an active organisation. */
  private async usableMemberships(memberships: User[]): Promise<User[]> {
    const usable: User[] = [];
    for (const m of memberships)
      if (m.active && (await this.organizationActive(m.organizationId))) usable.push(m);
    return usable;
  }

  /**
   * The person's membership of another organisation, for a session that switches to it: a 404
   * when they have none there (or it, or the organisation, is deactivated), a 403 when this
   * session cannot switch (single sign-on) or that organisation takes no password. The session
   * itself starts with startFor, after the second step when that membership needs one.
   */
  async membershipToSwitchTo(principal: SessionPrincipal, organizationId: string): Promise<User> {
    const memberships = await this.users.membershipsOf(principal.personId);
    const target = memberships.find((m) => m.organizationId === organizationId);
    if (!target || !(await this.usableMemberships([target])).length)
      throw AppError.of(
        Problems.NotFound,
        `You are not an active member of an organisation ${organizationId}.`,
      );
    if (principal.signedInWith === 'sso')
      throw AppError.of(
        Problems.Forbidden,
        'You signed in through this organisation’s single sign-on, which vouches for you here only: sign out, then sign in with your password or that organisation’s single sign-on.',
      );
    if (await this.passwordSignInRefused(organizationId))
      throw AppError.of(Problems.SsoRequired, SSO_REQUIRED);
    return target;
  }

  /**
   * Starts a session for a user whom another way of signing in has already resolved (single
   * sign-on): the same cookie, CSRF token, lifetimes and audit entry as a password sign-in.
   */
  async startFor(
    user: User,
    meta: {
      ipAddress: string | null;
      userAgent: string | null;
      previousToken?: string;
      requestId?: string;
      details?: Record<string, unknown>;
      /** How the person proved who they are (default: their password). */
      signedInWith?: 'password' | 'sso';
    },
  ): Promise<SignedIn> {
    if (!user.active || !(await this.organizationActive(user.organizationId)))
      throw AppError.of(Problems.Unauthenticated, `The user ${user.email} is deactivated.`);
    const now = this.clock();
    const switchedFrom = meta.previousToken
      ? await this.endPrevious(meta.previousToken, user.organizationId, now, meta.requestId)
      : undefined;
    const token = newToken();
    const csrfToken = csrfTokenFor(token);
    const absoluteExpiresAt = new Date(now.getTime() + this.lifetimes.absoluteHours * 3_600_000);
    const id = uuidv7();
    await this.repo.insert({
      organizationId: user.organizationId,
      id,
      userId: user.id,
      tokenHash: sha256(token),
      csrfTokenHash: sha256(csrfToken),
      now,
      idleExpiresAt: this.idleExpiry(now, absoluteExpiresAt),
      absoluteExpiresAt,
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent?.slice(0, 500) ?? null,
      signedInWith: meta.signedInWith ?? 'password',
    });
    await this.users.rememberOrganization(user.personId, user.organizationId);
    await this.audit.record(
      {
        organizationId: user.organizationId,
        actor: { type: 'user', id: user.id },
        ipAddress: meta.ipAddress ?? undefined,
        requestId: meta.requestId,
      },
      'session.signed_in',
      { type: 'session', id },
      { ...meta.details, ...(switchedFrom && { switchedFrom }) },
    );
    return { user, token, csrfToken, maxAgeSeconds: this.lifetimes.absoluteHours * 3600 };
  }

  /**
   * Ends the session the browser had. When it was in another organisation (a switch, however its
   * second step went), that organisation's audit log says its session ended and where the person
   * went; answers that organisation, which the new session's entry names as `switchedFrom`.
   */
  private async endPrevious(
    token: string,
    organizationId: string,
    now: Date,
    requestId?: string,
  ): Promise<string | undefined> {
    const ended = await this.repo.revokeByTokenHash(sha256(token), now);
    if (!ended || ended.organizationId === organizationId) return undefined;
    await this.audit.record(
      { organizationId: ended.organizationId, actor: { type: 'user', id: ended.userId }, requestId },
      'session.signed_out',
      { type: 'session', id: ended.id },
      { switchedTo: organizationId },
    );
    return ended.organizationId;
  }

  private idleExpiry(now: Date, absolute: Date): Date {
    return new Date(Math.min(now.getTime() + this.lifetimes.idleMinutes * 60_000, absolute.getTime()));
  }

  /** The principal of a session cookie, or null when it is unknown, ended or expired. */
  async authenticate(token: string): Promise<SessionPrincipal | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const now = this.clock();
    const row = await this.repo.findActiveByTokenHash(sha256(token), now);
    if (!row) return null;
    if (now.getTime() - row.last_seen_at.getTime() > TOUCH_INTERVAL_MS) {
      await this.repo.touch(row.organization_id, row.id, now, this.idleExpiry(now, row.absolute_expires_at));
    }
    return {
      kind: 'session',
      organizationId: row.organization_id,
      userId: row.user_id,
      role: row.role as Role,
      sessionId: row.id,
      csrfTokenHash: row.csrf_token_hash,
      personId: row.person_id,
      installationAdmin: row.installation_admin,
      signedInWith: row.signed_in_with,
    };
  }

  csrfMatches(principal: SessionPrincipal, csrfToken: unknown): boolean {
    if (typeof csrfToken !== 'string' || csrfToken.length === 0 || csrfToken.length > 100) return false;
    return timingSafeEqual(sha256(csrfToken), principal.csrfTokenHash);
  }

  /** Ends every session of a user (deactivated, password changed), except `keepId`. */
  async endAllFor(organizationId: string, userId: string, keepId?: string): Promise<void> {
    await this.repo.revokeAllForUser(organizationId, userId, this.clock(), keepId);
  }

  async signOut(principal: SessionPrincipal, requestId?: string): Promise<void> {
    await this.repo.revoke(principal.organizationId, principal.sessionId, this.clock());
    await this.audit.record(
      { organizationId: principal.organizationId, actor: { type: 'user', id: principal.userId }, requestId },
      'session.signed_out',
      { type: 'session', id: principal.sessionId },
    );
  }
}

/** The membership in the organisation signed in to last, else the oldest. */
function preferred(memberships: User[], lastOrganizationId: string | null): User | undefined {
  return memberships.find((m) => m.organizationId === lastOrganizationId) ?? memberships[0];
}
