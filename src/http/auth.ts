import type { FastifyInstance } from 'fastify';
import type { ApiKeyService } from '../modules/apikeys/service.js';
import type { ScanNode } from '../modules/scannodes/types.js';
import type { SessionService } from '../modules/sessions/service.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { DEFAULT_AUTH_METHODS, roleAllows } from './access.js';

/** One message for every failure: missing, malformed, unknown, wrong secret, revoked, expired. */
export const UNAUTHENTICATED_DETAIL =
  'Valid API credentials are required: send the ApiAccessKey and ApiSecretKey headers of an active API key.';

/**
 * Authentication runs first (so the throttle can count per API key), authorisation after the
 * throttle and before the body is read (so an unauthenticated client cannot make us parse it).
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

export function registerAuth(
  app: FastifyInstance,
  apiKeys: ApiKeyService,
  sessions: SessionService,
  scanNodes?: NodeAuthenticator,
): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('scanNode', null);

  // Callback-style hooks: this runs on every request, and a cached key needs no promise at all.
  app.addHook('onRequest', (request, _reply, done) => {
    // The node protocol takes only a node key: user credentials are not looked at there.
    const access = request.routeOptions.config.access;
    if (access && 'scanNode' in access) {
      if (!scanNodes) return done();
      scanNodes.authenticate(bearerOf(request.headers.authorization)).then((node) => {
        request.scanNode = node;
        done();
      }, done);
      return;
    }
    const accessKey = request.headers.apiaccesskey;
    const secretKey = request.headers.apisecretkey;
    if (accessKey === undefined && secretKey === undefined) {
      const token = request.cookies[SESSION_COOKIE];
      if (!token) return done();
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
  });

  app.addHook('preParsing', (request, _reply, payload, done) => {
    const access = request.routeOptions.config.access;
    if (!access || 'public' in access) return done(null, payload);
    if ('scanNode' in access) {
      if (request.scanNode) return done(null, payload);
      return done(
        AppError.of(
          Problems.Unauthenticated,
          NODE_UNAUTHENTICATED_DETAIL,
          {},
          { 'www-authenticate': 'Bearer' },
        ),
      );
    }
    const via = access.via ?? DEFAULT_AUTH_METHODS;
    if (!request.auth || !via.includes(request.auth.kind)) {
      const detail = via.includes('apiKey') ? UNAUTHENTICATED_DETAIL : SESSION_ONLY_DETAIL;
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
    if (!roleAllows(request.auth.role, access.role)) {
      return done(
        AppError.of(
          Problems.Forbidden,
          `This action requires the ${access.role} role or higher; your role is ${request.auth.role}.`,
        ),
      );
    }
    done(null, payload);
  });
}
