import type { FastifyInstance } from 'fastify';
import type { ApiKeyService } from '../modules/apikeys/service.js';
import { roleAllows } from './access.js';
import { AppError } from './problems/app-error.js';
import { Problems } from './problems/types.js';

/** One message for every failure: missing, malformed, unknown, wrong secret, revoked, expired. */
export const UNAUTHENTICATED_DETAIL =
  'Valid API credentials are required: send the ApiAccessKey and ApiSecretKey headers of an active API key.';

/**
 * Authentication runs first (so the throttle can count per API key), authorisation after the
 * throttle and before the body is read (so an unauthenticated client cannot make us parse it).
 */
export function registerAuth(app: FastifyInstance, apiKeys: ApiKeyService): void {
  app.decorateRequest('auth', null);

  // Callback-style hooks: this runs on every request, and a cached key needs no promise at all.
  app.addHook('onRequest', (request, _reply, done) => {
    const accessKey = request.headers.apiaccesskey;
    const secretKey = request.headers.apisecretkey;
    if (accessKey === undefined && secretKey === undefined) return done();
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
    if (!request.auth) {
      return done(AppError.of(Problems.Unauthenticated, UNAUTHENTICATED_DETAIL, {}, { 'www-authenticate': 'ApiKey' }));
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
