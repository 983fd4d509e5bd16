import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../http/auth.js';
import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { contextOf, principalOf } from '../../http/request-context.js';
import type { OrganizationService } from '../organizations/service.js';
import { setSessionCookie } from '../sessions/cookie.js';
import { sessionBody } from '../sessions/presenters.js';
import { countAgainstAccount, type SignInLimits, signInBudgets } from '../sessions/routes.js';
import { SessionSchema } from '../sessions/schemas.js';
import type { SessionService } from '../sessions/service.js';
import type { UserService } from '../users/service.js';
import { proofFromBody, toEnrolmentDto, toMfaStatusDto, toMfaUserDto } from './presenters.js';
import {
  ChallengeBody,
  ChallengeCodeBody,
  ConfirmBody,
  EmptyBody,
  EnrolledSessionSchema,
  EnrolmentSchema,
  MfaStatusSchema,
  MfaUsersSchema,
  ProofBody,
  RecoveryCodesSchema,
  SecondFactorBody,
} from './schemas.js';
import type { MfaService } from './service.js';

export interface MfaRouteDeps {
  mfa: MfaService;
  sessions: SessionService;
  organizations: OrganizationService;
  users: UserService;
  baseUrl: string;
  loginLimits: SignInLimits;
}

/**
 * Second factors (docs/mfa.md): the second step of a password sign-in, setting a factor up in My
 * profile, and an Admin's reset. Managing one's own factor takes a web session: an API key
 * (which never needs a second factor) cannot change how its owner signs in.
 */
export const mfaRoutes =
  (deps: MfaRouteDeps): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Multi-factor sign-in'], channels: ['latest'] });
    const { mfa } = deps;

    // The second step counts against the same budgets as the password (one account, from one
    // address, …): the account is the challenge's user, found before the budgets are checked.
    const findAccount = async (request: FastifyRequest) => {
      const token = (request.body as { ChallengeToken?: unknown }).ChallengeToken;
      countAgainstAccount(request, await mfa.accountOf(token));
    };
    const budgets = [findAccount, ...signInBudgets(app, deps.loginLimits)];
    const meta = (request: FastifyRequest) => ({
      ipAddress: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      previousToken: request.cookies[SESSION_COOKIE],
      requestId: request.id,
    });
    const session = (user: Parameters<SessionService['startFor']>[0], csrfToken: string) =>
      sessionBody(deps, user, csrfToken);

    group.post('/session/mfa', {
      access: { public: true },
      preHandler: budgets,
      schema: {
        operationId: 'signInSecondFactor',
        summary: 'Second step of a sign-in: a code or a recovery code',
        description:
          'After POST /session answered 202 with `Step: Code`: the `ChallengeToken` and either `Code` (the 6 digits of the authenticator app; a code cannot be used twice) or `RecoveryCode` (each works once). Starts the session as POST /session does. A wrong code is a 401 `second-factor-invalid` with `attemptsLeft`; after 5 wrong codes, or 5 minutes, the sign-in starts again from the password (401 `sign-in-challenge-expired`). Attempts count against the sign-in throttle of the account.',
        body: SecondFactorBody,
        response: { 200: SessionSchema },
      },
      handler: async (request, reply) => {
        const { user, method } = await mfa.completeSignIn(
          request.body.ChallengeToken,
          { code: request.body.Code, recoveryCode: request.body.RecoveryCode },
          meta(request),
        );
        const signedIn = await deps.sessions.startFor(user, {
          ...meta(request),
          details: { secondFactor: method },
        });
        setSessionCookie(request, reply, deps.baseUrl, signedIn);
        return session(user, signedIn.csrfToken);
      },
    });

    group.post('/session/mfa/enrolment', {
      access: { public: true },
      preHandler: budgets,
      schema: {
        operationId: 'signInStartEnrolment',
        summary: 'Set a second factor up during a sign-in',
        description:
          'After POST /session answered 202 with `Step: Enrol` (the organisation requires a second factor and you have none): a new TOTP secret, as text, otpauth:// URI and QR code, for your authenticator app. Calling it again replaces the secret.',
        body: ChallengeBody,
        response: { 200: EnrolmentSchema },
      },
      handler: async (request) =>
        toEnrolmentDto(await mfa.startSignInEnrolment(request.body.ChallengeToken, meta(request))),
    });

    group.post('/session/mfa/enrolment/confirm', {
      access: { public: true },
      preHandler: budgets,
      schema: {
        operationId: 'signInConfirmEnrolment',
        summary: 'Confirm the new second factor and start the session',
        description:
          'A current code of the new secret makes it active and starts the session (as POST /session does); the answer holds ten recovery codes, shown only now. A wrong code is a 401 `second-factor-invalid`.',
        body: ChallengeCodeBody,
        response: { 200: EnrolledSessionSchema },
      },
      handler: async (request, reply) => {
        const { user, recoveryCodes } = await mfa.confirmSignInEnrolment(
          request.body.ChallengeToken,
          request.body.Code,
          meta(request),
        );
        const signedIn = await deps.sessions.startFor(user, {
          ...meta(request),
          details: { secondFactor: 'Totp', enrolled: true },
        });
        setSessionCookie(request, reply, deps.baseUrl, signedIn);
        return { ...(await session(user, signedIn.csrfToken)), RecoveryCodes: recoveryCodes };
      },
    });

    group.get('/account/mfa', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getMfaStatus',
        summary: 'Your second factor',
        response: { 200: MfaStatusSchema },
      },
      handler: async (request) =>
        toMfaStatusDto(await mfa.status(contextOf(request), principalOf(request).userId)),
    });

    // The confirmation first: the sweeps call routes in this order (test/http/csrf-sweep.test.ts).
    group.post('/account/mfa/enrolment/confirm', {
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'confirmMfaEnrolment',
        summary: 'Confirm the new second factor with a code',
        description:
          'A current code of the new secret makes it active: from now on, password sign-in asks for a code. Answers ten recovery codes, shown only now. A wrong code is a 400 naming `/Code`.',
        body: ConfirmBody,
        response: { 200: RecoveryCodesSchema },
      },
      handler: async (request) => ({
        RecoveryCodes: await mfa.confirmEnrolment(
          contextOf(request),
          principalOf(request).userId,
          request.body.Code,
        ),
      }),
    });

    group.post('/account/mfa/enrolment', {
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'startMfaEnrolment',
        summary: 'Start setting a second factor up',
        description:
          'A new TOTP secret (as text, otpauth:// URI and QR code) for your authenticator app; it is active only once a code confirms it (POST /account/mfa/enrolment/confirm). With a factor already, the new one replaces it when confirmed. 409 for an account without a password.',
        body: EmptyBody,
        response: { 200: EnrolmentSchema },
      },
      handler: async (request) =>
        toEnrolmentDto(await mfa.startEnrolment(contextOf(request), principalOf(request).userId)),
    });

    group.post('/account/mfa/recoverycodes', {
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'regenerateRecoveryCodes',
        summary: 'New recovery codes',
        description:
          'Ten new recovery codes, shown only now; the old ones stop working. Takes your `Password` or a current `Code` (400 naming the field when wrong).',
        body: ProofBody,
        response: { 200: RecoveryCodesSchema },
      },
      handler: async (request) => ({
        RecoveryCodes: await mfa.regenerateRecoveryCodes(
          contextOf(request),
          principalOf(request).userId,
          proofFromBody(request.body),
        ),
      }),
    });

    group.post('/account/mfa/disable', {
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'disableMfa',
        summary: 'Remove your second factor',
        description:
          'Takes your `Password` or a current `Code`. Refused (409) when your organisation requires a second factor: set up a new one instead, which replaces it.',
        body: ProofBody,
        response: { 204: noContent('Removed: password sign-in no longer asks for a code.') },
      },
      handler: async (request, reply) => {
        await mfa.disable(contextOf(request), principalOf(request).userId, proofFromBody(request.body));
        return reply.code(204).send();
      },
    });

    group.get('/users/mfa', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'listMfaUsers',
        summary: 'Users with a second factor',
        response: { 200: MfaUsersSchema },
      },
      handler: async (request) => ({
        Items: (await mfa.activeFactors(contextOf(request))).map(toMfaUserDto),
      }),
    });

    group.delete('/users/:Id/mfa', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'resetUserMfa',
        summary: 'Reset a user’s second factor',
        description:
          'For a lost device: removes the user’s second factor and recovery codes and ends their sessions. They set a new one up in My profile, or at their next sign-in when the organisation requires one.',
        params: IdParams,
        response: { 204: noContent('Reset.') },
      },
      handler: async (request, reply) => {
        await mfa.reset(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });
  };
