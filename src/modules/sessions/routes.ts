import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { SESSION_COOKIE } from '../../http/auth.js';
import type { ChannelRoutes } from '../../http/channels.js';
import { noContent, routeGroup } from '../../http/channels.js';
import { principalOf } from '../../http/request-context.js';
import { extraLimit } from '../../http/throttle.js';
import { toSecondStepDto } from '../mfa/presenters.js';
import { SecondStepSchema } from '../mfa/schemas.js';
import type { SecondStep } from '../mfa/service.js';
import type { OrganizationService } from '../organizations/service.js';
import type { User, UserService } from '../users/service.js';
import { secureCookie, setSessionCookie } from './cookie.js';
import { sessionBody } from './presenters.js';
import { SessionSchema, SignInSchema, SwitchOrganizationSchema } from './schemas.js';
import { csrfTokenFor, type SessionService } from './service.js';

export interface SessionRouteDeps {
  sessions: SessionService;
  users: UserService;
  organizations: OrganizationService;
  baseUrl: string;
  loginLimits: SignInLimits;
  /** What a password sign-in of this user needs after the password (the mfa module decides). */
  secondStep: (user: User) => Promise<SecondStep | null>;
}

/** Sign-in budgets (RAMPART_LOGIN_THROTTLE_*), each over the same window. */
export interface SignInLimits {
  /** One account from one address: what one guesser spends on one name. */
  accountAtAddress: number;
  /** One account from every address: guessing one name from many addresses. */
  account: number;
  /** One address, whatever the accounts: many names guessed from one place. */
  address: number;
  windowSeconds: number;
}

const emailOf = (request: FastifyRequest) =>
  String((request.body as { Email?: unknown } | undefined)?.Email ?? '')
    .trim()
    .toLowerCase();

// The account of a sign-in step whose body names no email: the second step's, found from its
// challenge (src/modules/mfa) before the budgets count it.
const stepAccounts = new WeakMap<FastifyRequest, string>();

/** Counts this request of a sign-in step against `account`'s budgets (lower-case email; '' for none). */
export function countAgainstAccount(request: FastifyRequest, account: string): void {
  stepAccounts.set(request, account);
}

const accountOf = (request: FastifyRequest) => stepAccounts.get(request) ?? emailOf(request);

// One set of counters per server: the password and the second step spend the same budgets.
const budgetsOf = new WeakMap<FastifyInstance, preHandlerHookHandler[]>();

/**
 * The three sign-in budgets, checked in this order: a refused attempt is not counted by the ones
 * after it, so that repeating a name already spent at an address does not eat into the budget of
 * the address, which the real users behind the same NAT share. An unknown email counts against
 * that name, like a known one (whether it exists is not revealed), never against another account.
 */
export function signInBudgets(app: FastifyInstance, limits: SignInLimits): preHandlerHookHandler[] {
  const known = budgetsOf.get(app);
  if (known) return known;
  const windowSeconds = limits.windowSeconds;
  const budgets = [
    extraLimit(app, {
      limit: limits.accountAtAddress,
      windowSeconds,
      budget: 'sign-in',
      what: 'sign-in attempts for this account from this address',
      key: (r) => `login-pair:${normalizeIP(r.ip)}:${accountOf(r)}`,
    }),
    extraLimit(app, {
      limit: limits.account,
      windowSeconds,
      budget: 'sign-in',
      what: 'sign-in attempts for this account',
      key: (r) => `login-account:${accountOf(r)}`,
    }),
    extraLimit(app, {
      limit: limits.address,
      windowSeconds,
      budget: 'sign-in',
      what: 'sign-in attempts from this address',
      key: (r) => `login-addr:${normalizeIP(r.ip)}`,
    }),
  ];
  budgetsOf.set(app, budgets);
  return budgets;
}

export const sessionRoutes =
  (deps: SessionRouteDeps): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Session'], channels: ['latest'] });
    const secure = (request: FastifyRequest) => secureCookie(deps.baseUrl, request);
    const body = (user: User, csrfToken: string, signedInWith: 'password' | 'sso' = 'password') =>
      sessionBody(deps, user, csrfToken, signedInWith);
    const clearCookie = (request: FastifyRequest, reply: FastifyReply) =>
      reply.clearCookie(SESSION_COOKIE, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secure(request),
      });

    const limits = deps.loginLimits;
    const budgets = signInBudgets(app, limits);

    group.post('/session', {
      access: { public: true },
      preHandler: budgets,
      schema: {
        operationId: 'signIn',
        summary: 'Sign in to the web application',
        description:
          'Starts a web session: sets the `rampart_session` cookie (HttpOnly, SameSite=Lax, Secure over https) and ' +
          'returns the CSRF token. Attempts are limited per window of ' +
          `${limits.windowSeconds} s: ${limits.accountAtAddress} for one account from one address, ` +
          `${limits.account} for one account in all, ${limits.address} from one address. ` +
          'A user with a second factor, or whose organisation requires one, gets 202 and no session: ' +
          'the next step takes the `ChallengeToken` (POST /session/mfa, or /session/mfa/enrolment; docs/mfa.md).',
        body: SignInSchema,
        response: { 200: SessionSchema, 202: SecondStepSchema },
      },
      handler: async (request, reply) => {
        const meta = {
          ipAddress: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          previousToken: request.cookies[SESSION_COOKIE],
          requestId: request.id,
        };
        const user = await deps.sessions.checkPassword(request.body.Email, request.body.Password, meta);
        // A second factor, or setting one up, before any session (docs/mfa.md).
        const second = await deps.secondStep(user);
        if (second) return reply.code(202).send(toSecondStepDto(second));
        const signedIn = await deps.sessions.startFor(user, meta);
        setSessionCookie(request, reply, deps.baseUrl, signedIn);
        return body(signedIn.user, signedIn.csrfToken);
      },
    });

    group.get('/session', {
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'getSession',
        summary: 'Who is signed in',
        response: { 200: SessionSchema },
      },
      handler: async (request) => {
        const principal = principalOf(request);
        const user = await deps.users.get(
          { organizationId: principal.organizationId, actor: { type: 'user', id: principal.userId } },
          principal.userId,
        );
        return body(
          user,
          csrfTokenFor(request.cookies[SESSION_COOKIE] ?? ''),
          principal.kind === 'session' ? principal.signedInWith : 'password',
        );
      },
    });

    group.post('/session/organization', {
      access: { role: 'ReadOnly', via: ['session'] },
      // Like signing in: a new session each time, nothing to replay.
      idempotency: false,
      schema: {
        operationId: 'switchOrganization',
        summary: 'Switch to another of your organisations',
        description:
          'Starts a new session in the organisation (one of the session’s `Organizations`) and ends this one: a new cookie and CSRF token, your role there. ' +
          'When your membership there has a second factor, or that organisation requires one, the answer is 202 with the second step, as at sign-in (POST /session/mfa). ' +
          'A session started through single sign-on is bound to its organisation (403); an organisation that signs in with single sign-on only is a 403 `sso-required`; an organisation you are not an active member of is a 404.',
        body: SwitchOrganizationSchema,
        response: { 200: SessionSchema, 202: SecondStepSchema },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        if (principal.kind !== 'session') throw new Error('a session route without a session');
        const target = await deps.sessions.membershipToSwitchTo(principal, request.body.OrganizationId);
        const meta = {
          ipAddress: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          previousToken: request.cookies[SESSION_COOKIE],
          requestId: request.id,
        };
        const second = await deps.secondStep(target);
        if (second) return reply.code(202).send(toSecondStepDto(second));
        const signedIn = await deps.sessions.startFor(target, meta);
        setSessionCookie(request, reply, deps.baseUrl, signedIn);
        return body(signedIn.user, signedIn.csrfToken);
      },
    });

    group.delete('/session', {
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'signOut',
        summary: 'Sign out',
        description: 'Ends the session on every instance at once.',
        response: { 204: noContent('Signed out.') },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        if (principal.kind === 'session') await deps.sessions.signOut(principal, request.id);
        clearCookie(request, reply);
        return reply.code(204).send();
      },
    });
  };
