import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../modules/context.js';
import type { ScanNode } from '../modules/scannodes/types.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import type { Principal } from './access.js';
import { NODE_UNAUTHENTICATED_DETAIL, UNAUTHENTICATED_DETAIL } from './auth.js';

/** The authenticated caller; routes that are not public can rely on it. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.auth) throw AppError.of(Problems.Unauthenticated, UNAUTHENTICATED_DETAIL);
  return request.auth;
}

/** The service context of an authenticated request: its organisation and actor. */
export function contextOf(request: FastifyRequest): ServiceContext {
  const principal = principalOf(request);
  return {
    organizationId: principal.organizationId,
    actor:
      principal.kind === 'apiKey'
        ? { type: 'apikey', id: principal.apiKeyId }
        : { type: 'user', id: principal.userId },
    role: principal.role,
    userId: principal.userId,
    requestId: request.id,
    ipAddress: request.ip,
  };
}

/** The scan node of a node-protocol request (routes with `access: { scanNode: true }`). */
export function scanNodeOf(request: FastifyRequest): ScanNode {
  if (!request.scanNode) throw AppError.of(Problems.Unauthenticated, NODE_UNAUTHENTICATED_DETAIL);
  return request.scanNode;
}
