import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { ApiKeyService } from '../modules/apikeys/service.js';
import type { ScanNode } from '../modules/scannodes/types.js';
import type { SessionService } from '../modules/sessions/service.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { type Access, DEFAULT_AUTH_METHODS, roleAllows } from './access.js';

/** One message for every failure: missing, malformed, unknown, wrong secret, revoked, expired. */
export const UNAUTHENTICATED_DETAIL =
  'Valid API credentials are required: send the ApiAccessKey and ApiSecretKey headers of an active API key.';

/**
 * Authentication runs first (so the throttle can count per API key), authorisation after the
 * throttle and before the body is read (so an unauthenticated client cannot make us parse it):
 * all three are a route's onRequest hooks, in that order.
 */
export const SESSION_COOKIE = 'rampart_session';
export const CSRF_HEADER = 'x-csrf-token';

export const NODE_UNAUTHENTICATED_DETAIL =
  'A valid scan node key is required: send Authorization: Bearer <node key> (from POST /scannodes/enrol); a revoked node must enrol again.';

/** Verifies a scan node's key: the node, or null when the key is missing, unknown or revoked. */
export interface NodeAuthenticator {
  authenticate(nodeKey: string | undefined): Promise<ScanNode | null>;
}

/** The key of `Authorization: Bearer <key>`, or undefined. */
export function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

const SESSION_ONLY_DETAIL = 'Sign in first: this endpoint needs a web session.';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type Done = (error?: Error) => void;

const NO_COOKIES: Readonly<Record<string, string | undefined>> = Object.freeze({});

/**
 * Authentication and authorisation, as hooks chosen for each route when it is registered (from
 * its `access`), so that a request does not look its route's options up (Fastify builds a new
 * `request.routeOptions` object on every read) and a public route runs no check at all.
 * Returns the hook that authenticates a request no route matched (the 404 handler's), so that
 * probing unknown paths with a key is still counted against that key.
 */
export function registerAuth(
  app: FastifyInstance,
  apiKeys: ApiKeyService,
  sessions: SessionService,
  scanNodes?: NodeAuthenticator,
): preHandlerHookHandler {
  app.decorateRequest('auth', null);
  app.decorateRequest('scanNode', null);

  // Callback-style hooks: these run on every request, and a cached key needs no promise at all.
  function authenticateUser(request: FastifyRequest, _reply: FastifyReply, done: Done): void {
    // The cookie plugin's own hook is off (server.ts): cookies are parsed here, and only when
    // there are some; a request without (an API client's) shares one empty object.
    const cookieHeader = request.headers.cookie;
    request.cookies = cookieHeader === undefined ? NO_COOKIES : app.parseCookie(cookieHeader);
    const accessKey = request.headers.apiaccesskey;
    const secretKey = request.headers.apisecretkey;
    if (accessKey === undefined && secretKey === undefined) {
      const token = request.cookies[SESSION_COOKIE];
      if (!token) {
        done();
        return;
      }
      sessions.authenticate(token).then((principal) => {
        request.auth = principal;
        done();
      }, done);
      return;
    }
    const result = apiKeys.authenticate(accessKey, secretKey);
    if (result instanceof Promise) {
      result.then((principal) => {
        request.auth = principal;
        done();
      }, done);
    } else {
      request.auth = result;
      done();
    }
  }

  // The node protocol takes only a node key: user credentials are not looked at there.
  function authenticateNode(request: FastifyRequest, _reply: FastifyReply, done: Done): void {
    if (!scanNodes) {
      done();
      return;
    }
    scanNodes.authenticate(bearerOf(request.headers.authorization)).then((node) => {
      request.scanNode = node;
      done();
    }, done);
  }

  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    const node = access !== undefined && 'scanNode' in access;
    route.onRequest = [route.onRequest ?? []].flat().concat(node ? authenticateNode : authenticateUser);
  });
  return authenticateUser as preHandlerHookHandler;
}

/**
 * Each route's check of its `access`, the last of its onRequest hooks (after the throttle, before
 * the body is read): register after the throttle. A public route gets none.
 */
export function registerAuthorisation(app: FastifyInstance, sessions: SessionService): void {
  app.addHook('onRoute', (route) => {
    const check = route.config?.access && authorise(route.config.access, sessions);
    if (check) route.onRequest = [route.onRequest ?? []].flat().concat(check);
  });
}

function authorise(access: Access, sessions: SessionService): onRequestHookHandler | undefined {
  if ('public' in access) return undefined;
  if ('scanNode' in access) {
    return (request, _reply, done) => {
      if (request.scanNode) return done();
      done(
        AppError.of(
          Problems.Unauthenticated,
          NODE_UNAUTHENTICATED_DETAIL,
          {},
          { 'www-authenticate': 'Bearer' },
        ),
      );
    };
  }
  const via = access.via ?? DEFAULT_AUTH_METHODS;
  const detail = via.includes('apiKey') ? UNAUTHENTICATED_DETAIL : SESSION_ONLY_DETAIL;
  return (request, _reply, done) => {
    if (!request.auth || !via.includes(request.auth.kind)) {
      return done(AppError.of(Problems.Unauthenticated, detail, {}, { 'www-authenticate': 'ApiKey' }));
    }
    // A browser sends the session cookie with any site's request; the CSRF header proves the
    // request comes from our own pages.
    if (
      request.auth.kind === 'session' &&
      !SAFE_METHODS.has(request.method) &&
      !sessions.csrfMatches(request.auth, request.headers[CSRF_HEADER])
    ) {
      return done(
        AppError.of(
          Problems.CsrfFailed,
          `Send the session's CSRF token in the ${CSRF_HEADER} header (from sign-in or GET /api/latest/session).`,
        ),
      );
    }
    if (access.installation && !(request.auth.kind === 'session' && request.auth.installationAdmin)) {
      return done(
        AppError.of(
          Problems.Forbidden,
          'This action requires an installation Admin (organisation Admins run only their organisation).',
        ),
      );
    }
    if (!roleAllows(request.auth.role, access.role)) {
      return done(
        AppError.of(
          Problems.Forbidden,
          `This action requires the ${access.role} role or higher; your role is ${request.auth.role}.`,
        ),
      );
    }
    done();
  };
}
