import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf, scanNodeOf } from '../../http/request-context.js';
import type { ScanRunService } from '../scanruns/service.js';
import { LEASE_SECONDS } from '../scanruns/service.js';
import {
  toEnrolledDto,
  toEnrolmentDto,
  toHeartbeatDto,
  toScanNodeDto,
  toScanNodeListDto,
} from './presenters.js';
import {
  CreateEnrolmentSchema,
  EnrolledSchema,
  EnrolmentSchema,
  EnrolSchema,
  HeartbeatAnswerSchema,
  HeartbeatSchema,
  ScanNodeIdParams,
  ScanNodeListSchema,
  ScanNodeSchema,
} from './schemas.js';
import type { ScanNodeService } from './service.js';

const PROTOCOL =
  'Part of the scan node protocol that `rampart scan-node` speaks; a node calls it with its own key, never with user credentials.';

/** Scan nodes: Admins enrol, list and revoke them; nodes enrol and heartbeat. */
export const scanNodeRoutes =
  (scanNodes: ScanNodeService, scanRuns: ScanRunService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Scan nodes'];

    route(app, ctx, {
      method: 'POST',
      url: '/scannodes/enrolments',
      channels: BOTH,
      access: { role: 'Admin' },
      // Its answer shows a secret once: a retry is told it was carried out, not shown the secret.
      idempotency: 'secret',
      schema: {
        operationId: 'createScanNodeEnrolment',
        summary: 'A one-time token to enrol a scan node',
        description:
          'The token is in this answer only, with the command to run on the node’s machine. It enrols one node, once, before it expires; only its SHA-256 is kept.',
        tags,
        body: CreateEnrolmentSchema,
        response: { 201: EnrolmentSchema },
      },
      handler: async (request, reply) => {
        const { enrolment, token } = await scanNodes.createEnrolment(contextOf(request), {
          expiresInHours: request.body.ExpiresInHours,
        });
        return reply.code(201).send(toEnrolmentDto(enrolment, token, ctx.config.baseUrl));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/scannodes',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'listScanNodes',
        summary: 'Your organisation’s scan nodes, and the local node',
        description:
          'With their state (Online while the last heartbeat is under 60 s old), kinds, version and capacity.',
        tags,
        response: { 200: ScanNodeListSchema },
      },
      handler: async (request) => toScanNodeListDto(await scanNodes.list(contextOf(request))),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/scannodes/:Id',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'getScanNode',
        summary: 'One scan node',
        tags,
        params: ScanNodeIdParams,
        response: { 200: ScanNodeSchema },
      },
      handler: async (request) => toScanNodeDto(await scanNodes.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/scannodes/:Id',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'revokeScanNode',
        summary: 'Revoke a scan node’s key',
        description:
          'Its next call is refused (401); the runs it held are queued again once their lease lapses. The local node cannot be revoked (409): turn it off with RAMPART_LOCAL_SCAN_NODE=false.',
        tags,
        params: ScanNodeIdParams,
        response: { 200: ScanNodeSchema },
      },
      handler: async (request) =>
        toScanNodeDto(await scanNodes.revoke(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/scannodes/enrol',
      channels: BOTH,
      access: { public: true },
      throttle: { limit: 20, windowSeconds: 60 },
      schema: {
        operationId: 'enrolScanNode',
        summary: 'A node enrols with a one-time token and receives its key',
        description: [
          PROTOCOL,
          'The node key is in this answer only. A token that is unknown, already used or expired is refused with 401.',
        ].join('\n\n'),
        tags,
        body: EnrolSchema,
        response: { 201: EnrolledSchema },
      },
      handler: async (request, reply) => {
        const b = request.body;
        const { node, nodeKey } = await scanNodes.enrol(b.Token, {
          name: b.Name,
          kinds: b.Kinds,
          version: b.Version,
          capacity: b.Capacity,
        });
        return reply.code(201).send(toEnrolledDto(node, nodeKey));
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/scannodes/heartbeat',
      channels: BOTH,
      access: { scanNode: true },
      schema: {
        operationId: 'scanNodeHeartbeat',
        summary: 'A node says it is alive and which runs it executes',
        description: [
          PROTOCOL,
          `Extends the lease of the runs it names (${LEASE_SECONDS} s) and answers which to stop and which it lost. A node heartbeats every 10 s, and every 2 s while it runs scans so that a stop takes effect within 5 s.`,
        ].join('\n\n'),
        tags,
        body: HeartbeatSchema,
        response: { 200: HeartbeatAnswerSchema },
      },
      handler: async (request) => {
        const b = request.body;
        const answer = await scanRuns.heartbeat(scanNodeOf(request), {
          kinds: b.Kinds,
          version: b.Version,
          capacity: b.Capacity,
          runIds: b.RunIds,
        });
        return toHeartbeatDto(answer, LEASE_SECONDS);
      },
    });
  };
