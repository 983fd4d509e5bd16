import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../http/auth.js';
import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import type { SessionService } from '../sessions/service.js';
import { OidcError } from './oidc.js';
import { toSsoProviderDto } from './presenters.js';
import {
  CreateSsoProviderSchema,
  ProviderParams,
  SignInProvidersSchema,
  SsoProviderListSchema,
  SsoProviderSchema,
  SsoSettingsSchema,
  UpdateSsoProviderSchema,
} from './schemas.js';
import { type ProviderInput, SsoRefused, type SsoService } from './service.js';

/** The cookie that ties a sign-in at a provider to the browser that started it (ten minutes). */
export const SSO_ATTEMPT_COOKIE = 'rampart_sso_attempt';

const redirect = (description: string) => ({ type: 'null', description });

type Body = {
  Name?: string;
  IssuerUrl?: string;
  ClientId?: string;
  ClientSecret?: string | null;
  Scopes?: string[];
  GroupsClaim?: string;
  DefaultRole?: ProviderInput['defaultRole'];
  RoleMappings?: { Group: string; Role: NonNullable<ProviderInput['defaultRole']> }[];
  Enabled?: boolean;
};

const inputOf = (b: Body): Partial<ProviderInput> => ({
  name: b.Name,
  issuerUrl: b.IssuerUrl,
  clientId: b.ClientId,
  clientSecret: b.ClientSecret,
  scopes: b.Scopes,
  groupsClaim: b.GroupsClaim,
  defaultRole: b.DefaultRole,
  roleMappings: b.RoleMappings?.map((m) => ({ group: m.Group, role: m.Role })),
  enabled: b.Enabled,
});

export interface SsoRouteDeps {
  sso: SsoService;
  sessions: SessionService;
  baseUrl: string;
}

export const ssoRoutes =
  ({ sso, sessions, baseUrl }: SsoRouteDeps): ChannelRoutes =>
  (app, ctx) => {
    const admin = routeGroup(app, ctx, { tags: ['Single sign-on'] });
    const flow = routeGroup(app, ctx, { tags: ['Single sign-on'], channels: ['latest'] });
    const dto = (p: Parameters<typeof toSsoProviderDto>[0]) => toSsoProviderDto(p, sso.redirectUri(p.id));
    const root = baseUrl.replace(/\/+$/, '');
    const secure = (request: FastifyRequest) => baseUrl.startsWith('https:') || request.protocol === 'https';
    const cookieOptions = (request: FastifyRequest) => ({
      path: '/',
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: secure(request),
    });
    /** Back to the sign-in page, which tells the user why (web src/features/signin/SsoSignIn.tsx). */
    const refused = (request: FastifyRequest, reply: FastifyReply, error: SsoRefused | OidcError) => {
      request.log.info({ ssoRefusal: error.reason }, `Single sign-on refused: ${error.message}`);
      reply.clearCookie(SSO_ATTEMPT_COOKIE, cookieOptions(request));
      return reply.redirect(`${root}/sign-in?sso_error=${encodeURIComponent(error.reason)}`, 302);
    };

    admin.get('/ssoproviders', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'listSsoProviders',
        summary: 'The organisation’s single sign-on (OpenID Connect) providers, by name',
        response: { 200: SsoProviderListSchema },
      },
      handler: async (request) => {
        const items = await sso.list(contextOf(request));
        return { Items: items.map(dto), NextCursor: null, TotalCount: items.length };
      },
    });

    admin.post('/ssoproviders', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'createSsoProvider',
        summary: 'Add a single sign-on (OpenID Connect) provider',
        description:
          'Register `RedirectUri` of the answer at the provider. 400 naming the field for an issuer that is not https (or loopback without RAMPART_SSO_ALLOW_LOOPBACK=true), scopes without openid, a group mapped twice; 409 when the organisation already has a provider of this name, or of this issuer and client id.',
        body: CreateSsoProviderSchema,
        response: { 201: SsoProviderSchema },
      },
      handler: async (request, reply) => {
        const created = await sso.create(contextOf(request), inputOf(request.body) as ProviderInput);
        return reply.code(201).send(dto(created));
      },
    });

    admin.get('/ssoproviders/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'getSsoProvider',
        summary: 'A single sign-on provider',
        params: IdParams,
        response: { 200: SsoProviderSchema },
      },
      handler: async (request) => dto(await sso.get(contextOf(request), request.params.Id)),
    });

    admin.patch('/ssoproviders/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'updateSsoProvider',
        summary: 'Change a single sign-on provider',
        description:
          'Only the fields sent change; `ClientSecret` left out keeps the secret there is, null removes it. The same checks as when adding one.',
        params: IdParams,
        body: UpdateSsoProviderSchema,
        response: { 200: SsoProviderSchema },
      },
      handler: async (request) =>
        dto(await sso.update(contextOf(request), request.params.Id, inputOf(request.body))),
    });

    admin.delete('/ssoproviders/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'deleteSsoProvider',
        summary: 'Remove a single sign-on provider',
        description:
          'Its links to users go with it; the users stay (with their roles) and sign in another way, or again through a new provider.',
        params: IdParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await sso.remove(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    admin.get('/ssosettings', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'getSsoSettings',
        summary: 'Whether the organisation signs in with single sign-on only',
        response: { 200: SsoSettingsSchema },
      },
      handler: async (request) => ({ SsoOnly: await sso.ssoOnly(contextOf(request)) }),
    });

    admin.put('/ssosettings', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'updateSsoSettings',
        summary: 'Turn “single sign-on only” on or off',
        description:
          'On: password sign-in is refused for the organisation’s users (403 `sso-required`); API keys keep working. Turning it on needs an enabled provider (400 otherwise).',
        body: SsoSettingsSchema,
        response: { 200: SsoSettingsSchema },
      },
      handler: async (request) => ({
        SsoOnly: await sso.setSsoOnly(contextOf(request), request.body.SsoOnly),
      }),
    });

    flow.get('/auth/oidc/providers', {
      access: { public: true },
      schema: {
        operationId: 'listSignInProviders',
        summary: 'The single sign-on providers the sign-in page offers',
        description:
          'Every enabled provider of the installation, by name (the sign-in page knows no organisation before someone signs in).',
        response: { 200: SignInProvidersSchema },
      },
      handler: async () => ({
        Items: (await sso.signInChoices()).map((p) => ({
          Id: p.id,
          Name: p.name,
          StartUrl: `${root}/api/latest/auth/oidc/${p.id}/start`,
        })),
      }),
    });

    flow.get('/auth/oidc/:ProviderId/start', {
      access: { public: true },
      schema: {
        operationId: 'startSingleSignOn',
        summary: 'Sign in through a provider (a browser navigates here)',
        description:
          'Redirects (302) to the provider’s authorisation endpoint with state, nonce and a PKCE challenge (S256), and sets a short-lived HttpOnly cookie tying the attempt to this browser (the verifier stays on the server). When the provider is unknown, disabled or cannot be reached, redirects to `/sign-in?sso_error=<reason>` instead.',
        params: ProviderParams,
        response: { 302: redirect('To the provider, or back to the sign-in page with the reason.') },
      },
      handler: async (request, reply) => {
        try {
          const started = await sso.start(request.params.ProviderId);
          reply.setCookie(SSO_ATTEMPT_COOKIE, started.cookie, {
            ...cookieOptions(request),
            maxAge: started.maxAgeSeconds,
          });
          return reply.redirect(started.url, 302);
        } catch (error) {
          if (error instanceof SsoRefused || error instanceof OidcError)
            return refused(request, reply, error);
          throw error;
        }
      },
    });

    flow.get('/auth/oidc/:ProviderId/callback', {
      access: { public: true },
      schema: {
        operationId: 'completeSingleSignOn',
        summary: 'Where the provider sends the browser back (the redirect URI)',
        description:
          'Exchanges the code (with the PKCE verifier) and validates the answer through openid-client: state, issuer, audience, signature, nonce. Then finds the user by (provider, subject), or by email, or creates them with the role their groups map to; applies that role at every sign-in; starts the Rampart session (the same cookie and CSRF token as a password sign-in) and redirects to the web app. Any refusal redirects to `/sign-in?sso_error=<reason>` and is recorded in the audit log (`session.sso_sign_in_failed`).',
        params: ProviderParams,
        response: { 302: redirect('To the web app, signed in; or to the sign-in page with the reason.') },
      },
      handler: async (request, reply) => {
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        try {
          const user = await sso.complete(
            request.params.ProviderId,
            query,
            request.cookies[SSO_ATTEMPT_COOKIE],
            {
              ipAddress: request.ip,
              requestId: request.id,
            },
          );
          const signedIn = await sessions.startFor(user, {
            ipAddress: request.ip,
            userAgent: request.headers['user-agent'] ?? null,
            previousToken: request.cookies[SESSION_COOKIE],
            requestId: request.id,
            details: { method: 'sso', provider: request.params.ProviderId },
            signedInWith: 'sso',
          });
          reply.clearCookie(SSO_ATTEMPT_COOKIE, cookieOptions(request));
          reply.setCookie(SESSION_COOKIE, signedIn.token, {
            ...cookieOptions(request),
            maxAge: signedIn.maxAgeSeconds,
          });
          return reply.redirect(`${root}/`, 302);
        } catch (error) {
          if (error instanceof SsoRefused || error instanceof OidcError)
            return refused(request, reply, error);
          throw error;
        }
      },
    });
  };
