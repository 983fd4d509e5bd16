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

  app.addHook('onRequest', async (request) => {
    const accessKey = request.headers.apiaccesskey;
    const secretKey = request.headers.apisecretkey;
    if (accessKey === undefined && secretKey === undefined) return;
    request.auth = await apiKeys.authenticate(accessKey, secretKey);
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    const access = request.routeOptions.config.access;
    if (!access || 'public' in access) return payload;
    if (!request.auth) {
      throw AppError.of(
        Problems.Unauthenticated,
        UNAUTHENTICATED_DETAIL,
        {},
        { 'www-authenticate': 'ApiKey' },
      );
    }
    if (!roleAllows(request.auth.role, access.role)) {
      throw AppError.of(
        Problems.Forbidden,
        `This action requires the ${access.role} role or higher; your role is ${request.auth.role}.`,
      );
    }
    return payload;
  });
}
